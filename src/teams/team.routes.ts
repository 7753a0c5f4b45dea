import { toBlueprintBody } from '../blueprints/blueprint.wire';
import { requestContext } from '../platform/http';
import { idParam, pageQuery, type RouteModule } from '../platform/routes';
import { teamAnalytics, toAnalyticsBody } from './analytics.service';
import { transferBlueprint } from './team-content.service';
import { deleteTeam, updateTeam } from './team-lifecycle.service';
import { addTeamMember, createTeam, getTeam, removeTeamMember, updateTeamMember } from './team.service';
import { teamArchitecturesBody, teamAuditBody, teamBlueprintsBody, teamListBody, toTeamBody } from './team.wire';

type TeamParams = { Params: { id: string } };
type MemberParams = { Params: { id: string; principalId: string } };
type PageParams = TeamParams & { Querystring: { limit?: string; offset?: string } };

const memberParams = {
  type: 'object',
  required: ['id', 'principalId'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 200 }, principalId: { type: 'string', minLength: 1, maxLength: 200 } },
};

/** Teams: bodies are checked by the service, after authentication and membership (it names the paths). */
export const teamRoutes: RouteModule = (app, deps) => {
  app.post<{ Body: unknown }>('/api/teams', async (request, reply) => {
    const ctx = await requestContext(request, deps);
    return reply.status(201).send(await toTeamBody(ctx, await createTeam(ctx, request.body)));
  });

  /** The caller's teams with their role, oldest membership first. */
  app.get<{ Querystring: { limit?: string; offset?: string } }>('/api/teams', { schema: { querystring: pageQuery } }, async (request) =>
    teamListBody(await requestContext(request, deps), request.query),
  );

  app.get<TeamParams>('/api/teams/:id', { schema: { params: idParam('id') } }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toTeamBody(ctx, await getTeam(ctx, request.params.id));
  });

  app.patch<TeamParams & { Body: unknown }>('/api/teams/:id', { schema: { params: idParam('id') } }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toTeamBody(ctx, await updateTeam(ctx, request.params.id, request.body));
  });

  app.delete<TeamParams>('/api/teams/:id', { schema: { params: idParam('id') } }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    await deleteTeam(ctx, request.params.id);
    return reply.status(204).send();
  });

  app.get<PageParams>('/api/teams/:id/blueprints', { schema: { params: idParam('id'), querystring: pageQuery } }, async (request) =>
    teamBlueprintsBody(await requestContext(request, deps), request.params.id, request.query),
  );

  app.get<PageParams>('/api/teams/:id/architectures', { schema: { params: idParam('id'), querystring: pageQuery } }, async (request) =>
    teamArchitecturesBody(await requestContext(request, deps), request.params.id, request.query),
  );

  app.get<TeamParams & { Querystring: { limit?: string; offset?: string; action?: string } }>(
    '/api/teams/:id/audit',
    { schema: { params: idParam('id'), querystring: { type: 'object', properties: { ...pageQuery.properties, action: { type: 'string' } } } } },
    async (request) => teamAuditBody(await requestContext(request, deps), request.params.id, request.query),
  );

  app.get<TeamParams & { Querystring: { window_days?: string } }>(
    '/api/teams/:id/analytics',
    { schema: { params: idParam('id'), querystring: { type: 'object', properties: { window_days: { type: 'string' } } } } },
    async (request) => {
      const ctx = await requestContext(request, deps);
      return toAnalyticsBody(await teamAnalytics(ctx, request.params.id, request.query.window_days));
    },
  );

  app.post<TeamParams & { Body: unknown }>('/api/blueprints/:id/transfer', { schema: { params: idParam('id') } }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toBlueprintBody(ctx, await transferBlueprint(ctx, request.params.id, request.body));
  });

  app.post<TeamParams & { Body: unknown }>('/api/teams/:id/members', { schema: { params: idParam('id') } }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    return reply.status(201).send(await toTeamBody(ctx, await addTeamMember(ctx, request.params.id, request.body)));
  });

  app.patch<MemberParams & { Body: unknown }>('/api/teams/:id/members/:principalId', { schema: { params: memberParams } }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toTeamBody(ctx, await updateTeamMember(ctx, request.params.id, request.params.principalId, request.body));
  });

  app.delete<MemberParams>('/api/teams/:id/members/:principalId', { schema: { params: memberParams } }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    await removeTeamMember(ctx, request.params.id, request.params.principalId);
    return reply.status(204).send();
  });
};
