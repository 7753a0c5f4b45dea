import { requestContext } from '../platform/http';
import type { RouteModule } from '../platform/routes';
import { teamSchemas } from './team.schemas';
import { addTeamMember, createTeam, getTeam, removeTeamMember, updateTeamMember } from './team.service';
import { toTeamBody } from './team.wire';

type TeamParams = { Params: { id: string } };
type MemberParams = { Params: { id: string; principalId: string } };

/** Teams: bodies are checked by the service, after authentication and membership (it names the paths). */
export const teamRoutes: RouteModule = (app, deps) => {
  app.post<{ Body: unknown }>('/api/teams', { schema: teamSchemas.create }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    return reply.status(201).send(await toTeamBody(ctx, await createTeam(ctx, request.body)));
  });

  app.get<TeamParams>('/api/teams/:id', { schema: teamSchemas.get }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toTeamBody(ctx, await getTeam(ctx, request.params.id));
  });

  app.post<TeamParams & { Body: unknown }>('/api/teams/:id/members', { schema: teamSchemas.addMember }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    return reply.status(201).send(await toTeamBody(ctx, await addTeamMember(ctx, request.params.id, request.body)));
  });

  app.patch<MemberParams & { Body: unknown }>('/api/teams/:id/members/:principalId', { schema: teamSchemas.updateMember }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toTeamBody(ctx, await updateTeamMember(ctx, request.params.id, request.params.principalId, request.body));
  });

  app.delete<MemberParams>('/api/teams/:id/members/:principalId', { schema: teamSchemas.removeMember }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    await removeTeamMember(ctx, request.params.id, request.params.principalId);
    return reply.status(204).send();
  });
};
