import { requestContext } from '../platform/http/http';
import type { RouteModule } from '../platform/http/routes';
import { broadcastContract } from './broadcast.contract';
import { sendBroadcast } from './broadcast.service';
import { inboxPageBody, subscriptionBody, toInboxBody, toSentBroadcastBody } from './broadcast.wire';
import { markInboxRead } from './inbox.service';

type IdParams = { Params: { id: string } };

export const broadcastRoutes: RouteModule = (app, deps) => {
  /** Owner only. Answers 201 with the broadcast and `recipient_count`. */
  app.post<IdParams>('/api/blueprints/:id/broadcasts', { schema: broadcastContract.send, config: { idempotent: true } }, async (request, reply) => {
    const ctx = await requestContext(request, deps);
    return reply.status(201).send(toSentBroadcastBody(await sendBroadcast(ctx, request.params.id, request.body)));
  });

  for (const [method, on] of [
    ['POST', true],
    ['DELETE', false],
  ] as const) {
    app.route<IdParams>({
      method,
      url: '/api/blueprints/:id/subscription',
      schema: broadcastContract.subscription,
      handler: async (request) => subscriptionBody(await requestContext(request, deps), request.params.id, on),
    });
  }

  app.get<{ Querystring: { unread?: string; limit?: string; offset?: string } }>('/api/inbox', { schema: broadcastContract.inbox }, async (request) =>
    inboxPageBody(await requestContext(request, deps), request.query),
  );

  app.post<{ Params: { deliveryId: string } }>('/api/inbox/:deliveryId/read', { schema: broadcastContract.markRead }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toInboxBody(await markInboxRead(ctx, request.params.deliveryId));
  });
};
