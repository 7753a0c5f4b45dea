import { requestContext } from '../platform/http/http';
import { type RouteModule } from '../platform/http/routes';
import { architectureContract } from './architecture.contract';
import { addEdge, addNode, removeEdge, removeNode, updateLayout } from './architecture-edit.service';
import { createArchitecture, transferArchitecture } from './architecture.service';
import { architectureBodyOf, architectureListBody, teamArchitecturesBody, toArchitectureBody, toEdgeBody, toNodeBody } from './architecture.wire';
import { architectureExport } from './export';
import { removeArchitecture, updateArchitecture } from './architecture-lifecycle.service';

type SlugParams = { Params: { slug: string } };

/**
 * Architectures. Bodies are checked by the services after authentication and access (so an anonymous
 * caller learns 401 before anything about the body), and their 400s name each offending path.
 */
export const architectureRoutes: RouteModule = (app, deps) => {
  app.post<{ Body: unknown }>('/api/architectures', { schema: architectureContract.create, config: { idempotent: true } }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    const arch = await createArchitecture(ctx, request.body);
    return reply.status(201).send(toArchitectureBody({ architecture: arch, nodes: [], edges: [] }));
  });

  /** Public, no authentication: a page of public architectures, newest first. */
  app.get<{ Querystring: { limit?: string; offset?: string } }>(
    '/api/architectures',
    { config: { public: true }, schema: architectureContract.list },
    async (request) => architectureListBody(await requestContext(request, deps), request.query),
  );

  /** A team's architectures, newest first (its members). */
  app.get<{ Params: { id: string }; Querystring: { limit?: string; offset?: string } }>(
    '/api/teams/:id/architectures',
    { schema: architectureContract.teamArchitectures },
    async (request) => teamArchitecturesBody(await requestContext(request, deps), request.params.id, request.query),
  );

  app.get<SlugParams>('/api/architectures/:slug', { config: { public: true }, schema: architectureContract.get }, async (request) =>
    architectureBodyOf(await requestContext(request, deps), request.params.slug),
  );

  /** Name, description, visibility; the slug never changes. */
  app.patch<SlugParams>('/api/architectures/:slug', { schema: architectureContract.update }, async (request) => {
    const ctx = await requestContext(request, deps);
    return architectureBodyOf(ctx, await updateArchitecture(ctx, request.params.slug, request.body));
  });

  app.delete<SlugParams>('/api/architectures/:slug', { schema: architectureContract.remove }, async (request, reply) => {
    await removeArchitecture(await requestContext(request, deps), request.params.slug);
    return reply.status(204).send();
  });

  app.post<SlugParams & { Body: unknown }>(
    '/api/architectures/:slug/nodes',
    { schema: architectureContract.addNode, config: { idempotent: true } },
    async (request, reply) => {
      const ctx = await requestContext(request, deps);
      return reply.status(201).send(toNodeBody(await addNode(ctx, request.params.slug, request.body)));
    },
  );

  app.post<SlugParams & { Body: unknown }>('/api/architectures/:slug/edges', { schema: architectureContract.addEdge }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    return reply.status(201).send(toEdgeBody(await addEdge(ctx, request.params.slug, request.body)));
  });

  /** Batch move: `[{nodeId, position: {x, y}}]`, all or nothing; answers the architecture as it now is. */
  app.put<SlugParams & { Body: unknown }>('/api/architectures/:slug/layout', { schema: architectureContract.layout }, async (request) => {
    const ctx = await requestContext(request, deps);
    return architectureBodyOf(ctx, await updateLayout(ctx, request.params.slug, request.body));
  });

  app.post<SlugParams & { Body: unknown }>('/api/architectures/:slug/transfer', { schema: architectureContract.transfer }, async (request) => {
    const ctx = await requestContext(request, deps);
    return architectureBodyOf(ctx, await transferArchitecture(ctx, request.params.slug, request.body));
  });

  app.delete<{ Params: { slug: string; nodeId: string } }>(
    '/api/architectures/:slug/nodes/:nodeId',
    { schema: architectureContract.removeNode },
    async (request, reply) => {
      const ctx = await requestContext(request, deps);
      await removeNode(ctx, request.params.slug, request.params.nodeId);
      return reply.status(204).send();
    },
  );

  app.delete<{ Params: { slug: string; edgeId: string } }>(
    '/api/architectures/:slug/edges/:edgeId',
    { schema: architectureContract.removeEdge },
    async (request, reply) => {
      const ctx = await requestContext(request, deps);
      await removeEdge(ctx, request.params.slug, request.params.edgeId);
      return reply.status(204).send();
    },
  );

  /** The diagram as Mermaid, DOT or JSON (default json); public architectures need no authentication. */
  app.get<SlugParams & { Querystring: { format?: string } }>(
    '/api/architectures/:slug/export',
    { config: { public: true }, schema: architectureContract.export },
    async (request, reply) => {
      const exported = await architectureExport(await requestContext(request, deps), request.params.slug, request.query.format ?? 'json');
      return reply.type(exported.content_type).send(exported.text);
    },
  );
};
