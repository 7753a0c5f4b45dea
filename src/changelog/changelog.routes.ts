import { requestContext } from '../platform/http/http';
import type { RouteModule } from '../platform/http/routes';
import { changelogContract } from './changelog.contract';
import { publishChangelogEntry, updateChangelogEntry } from './changelog.service';
import { changelogPageBody, toChangelogBody } from './changelog.wire';

type IdParams = { Params: { id: string } };
type EntryParams = { Params: { id: string; entryId: string } };

export const changelogRoutes: RouteModule = (app, deps) => {
  /** Public: no token needed for a public blueprint. Newest first. */
  app.get<IdParams & { Querystring: { limit?: string; offset?: string } }>(
    '/api/blueprints/:id/changelog',
    { config: { public: true }, schema: changelogContract.list },
    async (request) => changelogPageBody(await requestContext(request, deps), request.params.id, request.query),
  );

  app.post<IdParams>('/api/blueprints/:id/changelog', { schema: changelogContract.publish }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    const entry = await publishChangelogEntry(ctx, request.params.id, request.body);
    return reply.status(201).send(toChangelogBody(entry));
  });

  app.patch<EntryParams>('/api/blueprints/:id/changelog/:entryId', { schema: changelogContract.update }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toChangelogBody(await updateChangelogEntry(ctx, request.params.id, request.params.entryId, request.body));
  });
};
