import { requestContext } from '../platform/http/http';
import type { RouteModule } from '../platform/http/routes';
import { teamContract } from './team.contract';
import { teamAnalytics, toAnalyticsBody } from './analytics.service';
import { deleteTeam, updateTeam } from './team-lifecycle.service';
import { addTeamMember, createTeam, getTeam, removeTeamMember, updateTeamMember } from './team.service';
import { teamAuditBody, teamListBody, toTeamBody } from './team.wire';

type TeamParams = { Params: { id: string } };
type MemberParams = { Params: { id: string; principalId: string } };

/** Teams: bodies are checked by the service, after authentication and membership (it names the paths). */
export const teamRoutes: RouteModule = (app, deps) => {
  app.post<{ Body: unknown }>('/api/teams', { schema: teamContract.create }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    return reply.status(201).send(await toTeamBody(ctx, await createTeam(ctx, request.body)));
  });

  /** The caller's teams with their role, oldest membership first. */
  app.get<{ Querystring: { limit?: string; offset?: string } }>('/api/teams', { schema: teamContract.list }, async (request) =>
    teamListBody(await requestContext(request, deps), request.query),
  );

  app.get<TeamParams>('/api/teams/:id', { schema: teamContract.get }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toTeamBody(ctx, await getTeam(ctx, request.params.id));
  });

  app.patch<TeamParams & { Body: unknown }>('/api/teams/:id', { schema: teamContract.update }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toTeamBody(ctx, await updateTeam(ctx, request.params.id, request.body));
  });

  app.delete<TeamParams>('/api/teams/:id', { schema: teamContract.remove }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    await deleteTeam(ctx, request.params.id);
    return reply.status(204).send();
  });

  app.get<TeamParams & { Querystring: { limit?: string; offset?: string; action?: string } }>(
    '/api/teams/:id/audit',
    { schema: teamContract.audit },
    async (request) => teamAuditBody(await requestContext(request, deps), request.params.id, request.query),
  );

  app.get<TeamParams & { Querystring: { window_days?: string } }>('/api/teams/:id/analytics', { schema: teamContract.analytics }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toAnalyticsBody(await teamAnalytics(ctx, request.params.id, request.query.window_days));
  });

  app.post<TeamParams & { Body: unknown }>('/api/teams/:id/members', { schema: teamContract.addMember }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    return reply.status(201).send(await toTeamBody(ctx, await addTeamMember(ctx, request.params.id, request.body)));
  });

  app.patch<MemberParams & { Body: unknown }>('/api/teams/:id/members/:principalId', { schema: teamContract.updateMember }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toTeamBody(ctx, await updateTeamMember(ctx, request.params.id, request.params.principalId, request.body));
  });

  app.delete<MemberParams>('/api/teams/:id/members/:principalId', { schema: teamContract.removeMember }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    await removeTeamMember(ctx, request.params.id, request.params.principalId);
    return reply.status(204).send();
  });
};
