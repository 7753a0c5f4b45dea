import { invalid } from '../platform/errors';
import { requestContext } from '../platform/http';
import { pageFromQuery } from '../platform/pagination';
import type { RouteModule } from '../platform/routes';
import { architectureSchemas } from './architecture.schemas';
import { addEdge, addNode, removeEdge, removeNode, updateLayout } from './architecture-edit.service';
import { architectureView, getArchitecture } from './architecture.read';
import { createArchitecture, listPublicArchitectures, transferArchitecture } from './architecture.service';
import { toArchitectureBody, toEdgeBody, toNodeBody, toSummaryBody } from './architecture.wire';
import { exportArchitecture, exportContentTypes, exportFormats, type ExportFormat } from './export';

type SlugParams = { Params: { slug: string } };


/**
 * Architectures. Bodies are checked by the services after authentication and access (so an anonymous
 * caller learns 401 before anything about the body), and their 400s name each offending path.
 */
export const architectureRoutes: RouteModule = (app, deps) => {
  app.post<{ Body: unknown }>('/api/architectures', { schema: architectureSchemas.create }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    const arch = await createArchitecture(ctx, request.body);
    return reply.status(201).send(toArchitectureBody({ architecture: arch, nodes: [], edges: [] }));
  });

  /** Public, no authentication: a page of public architectures, newest first. */
  app.get<{ Querystring: { limit?: string; offset?: string } }>('/api/architectures', { schema: architectureSchemas.list }, async (request) => {
    const ctx = await requestContext(request, deps);
    const page = pageFromQuery(request.query, deps.config.limits);
    const result = await listPublicArchitectures(ctx, page);
    return { items: result.items.map(toSummaryBody), total: result.total, ...page };
  });

  app.get<SlugParams>('/api/architectures/:slug', { schema: architectureSchemas.get }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toArchitectureBody(await architectureView(ctx, await getArchitecture(ctx, request.params.slug)));
  });

  app.post<SlugParams & { Body: unknown }>('/api/architectures/:slug/nodes', { schema: architectureSchemas.addNode }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    return reply.status(201).send(toNodeBody(await addNode(ctx, request.params.slug, request.body)));
  });

  app.post<SlugParams & { Body: unknown }>('/api/architectures/:slug/edges', { schema: architectureSchemas.addEdge }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    return reply.status(201).send(toEdgeBody(await addEdge(ctx, request.params.slug, request.body)));
  });

  /** Batch move: `[{nodeId, position: {x, y}}]`, all or nothing; answers the architecture as it now is. */
  app.put<SlugParams & { Body: unknown }>('/api/architectures/:slug/layout', { schema: architectureSchemas.layout }, async (request) => {
    const ctx = await requestContext(request, deps);
    const arch = await updateLayout(ctx, request.params.slug, request.body);
    return toArchitectureBody(await architectureView(ctx, arch));
  });

  app.post<SlugParams & { Body: unknown }>('/api/architectures/:slug/transfer', { schema: architectureSchemas.transfer }, async (request) => {
    const ctx = await requestContext(request, deps);
    const arch = await transferArchitecture(ctx, request.params.slug, request.body);
    return toArchitectureBody(await architectureView(ctx, arch));
  });

  app.delete<{ Params: { slug: string; nodeId: string } }>('/api/architectures/:slug/nodes/:nodeId', { schema: architectureSchemas.removeNode }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    await removeNode(ctx, request.params.slug, request.params.nodeId);
    return reply.status(204).send();
  });

  app.delete<{ Params: { slug: string; edgeId: string } }>('/api/architectures/:slug/edges/:edgeId', { schema: architectureSchemas.removeEdge }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    await removeEdge(ctx, request.params.slug, request.params.edgeId);
    return reply.status(204).send();
  });

  /** The diagram as Mermaid, DOT or JSON (default json); public architectures need no authentication. */
  app.get<SlugParams & { Querystring: { format?: string } }>(
    '/api/architectures/:slug/export',
    { schema: architectureSchemas.export },
    async (request, reply) => {
      const ctx = await requestContext(request, deps);
      const arch = await getArchitecture(ctx, request.params.slug);
      const format = (request.query.format ?? 'json') as ExportFormat;
      if (!exportFormats.includes(format))
        throw invalid('format', `must be one of: ${exportFormats.join(', ')}`);
      const view = await architectureView(ctx, arch);
      return reply.type(exportContentTypes[format]).send(exportArchitecture(view, format));
    },
  );
};
