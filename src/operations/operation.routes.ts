import { requestContext } from '../platform/http/http';
import type { RouteModule } from '../platform/http/routes';
import { operationContract } from './operation.contract';
import { cancelOperation, getOperation, startOperation, submitStep } from './operation.service';
import { toOperationBody } from './operation.wire';

type OpParams = { Params: { operationId: string } };

export const operationRoutes: RouteModule = (app, deps) => {
  app.post<{ Body: { tool_type?: unknown; source_blueprint_ids?: unknown; params?: unknown } }>(
    '/api/tools/operations',
    { schema: operationContract.start, config: { idempotent: true } },
    async (request, reply) => {
      const ctx = await requestContext(request, deps);
      const body = request.body ?? {};
      const v = await startOperation(ctx, { toolType: body.tool_type, sourceBlueprintIds: body.source_blueprint_ids, params: body.params });
      return reply.status(201).send(toOperationBody(v, true));
    },
  );

  app.post<OpParams & { Body: { token?: unknown; submission?: unknown } }>(
    '/api/tools/operations/:operationId/submit',
    { schema: operationContract.submit, config: { idempotent: true } },
    async (request) => {
      const ctx = await requestContext(request, deps);
      const body = request.body ?? {};
      return toOperationBody(await submitStep(ctx, request.params.operationId, body.token, body.submission), true);
    },
  );

  app.get<OpParams>('/api/tools/operations/:operationId', { schema: operationContract.get }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toOperationBody(await getOperation(ctx, request.params.operationId), false);
  });

  app.post<OpParams>('/api/tools/operations/:operationId/cancel', { schema: operationContract.cancel }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toOperationBody(await cancelOperation(ctx, request.params.operationId), false);
  });
};
