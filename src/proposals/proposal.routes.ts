import { requestContext } from '../platform/http/http';
import type { RouteModule } from '../platform/http/routes';
import { commentOnProposal, mergeProposal, setProposalOpen } from './proposal-actions.service';
import { proposalContract } from './proposal.contract';
import { getProposal, openProposal } from './proposal.service';
import { commentListBody, proposalListBody, toCommentBody, toProposalBody } from './proposal.wire';

type IdParams = { Params: { id: string } };
type NumberParams = { Params: { id: string; number: string } };
type PageQuery = { Querystring: { state?: string; limit?: string; offset?: string } };
const base = '/api/blueprints/:id/proposals';

export const proposalRoutes: RouteModule = (app, deps) => {
  app.post<IdParams & { Body: unknown }>(base, { schema: proposalContract.open }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    return reply.status(201).send(toProposalBody(await openProposal(ctx, request.params.id, request.body)));
  });

  app.get<IdParams & PageQuery>(base, { schema: proposalContract.list }, async (request) =>
    proposalListBody(await requestContext(request, deps), request.params.id, request.query),
  );

  app.get<NumberParams>(`${base}/:number`, { schema: proposalContract.get }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toProposalBody(await getProposal(ctx, request.params.id, request.params.number));
  });

  app.post<NumberParams & { Body: unknown }>(`${base}/:number/comments`, { schema: proposalContract.comment }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    return reply.status(201).send(toCommentBody(await commentOnProposal(ctx, request.params.id, request.params.number, request.body)));
  });

  app.get<NumberParams & PageQuery>(`${base}/:number/comments`, { schema: proposalContract.comments }, async (request) =>
    commentListBody(await requestContext(request, deps), request.params.id, request.params.number, request.query),
  );

  app.post<NumberParams & { Body: unknown }>(`${base}/:number/merge`, { schema: proposalContract.merge }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toProposalBody(await mergeProposal(ctx, request.params.id, request.params.number, request.body));
  });

  for (const [verb, open] of [
    ['close', false],
    ['reopen', true],
  ] as const) {
    app.post<NumberParams>(`${base}/:number/${verb}`, { schema: proposalContract[verb] }, async (request) => {
      const ctx = await requestContext(request, deps);
      return toProposalBody(await setProposalOpen(ctx, request.params.id, request.params.number, open));
    });
  }
};
