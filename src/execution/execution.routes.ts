import { requestContext } from '../platform/http/http';
import type { RouteModule } from '../platform/http/routes';
import { executionContract } from './execution.contract';
import { executionStep, reportExecution, startExecution } from './execution.service';
import { executionHistoryBody, executionRunBody, toRunBody, toStartBody, toStepBody } from './execution.wire';

type IdParams = { Params: { id: string } };
type RunParams = { Params: { runId: string } };

/** Execution over REST. */
export const executionRoutes: RouteModule = (app, deps) => {
  // A GET that records a run: a write for the access rule (read tokens may not start runs).
  app.get<IdParams>('/api/blueprints/:id/start', { config: { write: true }, schema: executionContract.start }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toStartBody(await startExecution(ctx, request.params.id));
  });

  app.get<{ Params: { id: string; n: string }; Querystring: { token?: string } }>(
    '/api/blueprints/:id/step/:n',
    { config: { write: true }, schema: executionContract.step },
    async (request) => {
      const ctx = await requestContext(request, deps);
      return toStepBody(await executionStep(ctx, request.params.id, request.params.n, request.query.token));
    },
  );

  app.get<IdParams & { Querystring: { limit?: string; offset?: string } }>(
    '/api/blueprints/:id/executions',
    { schema: executionContract.history },
    async (request) => executionHistoryBody(await requestContext(request, deps), request.params.id, request.query),
  );

  app.get<RunParams>('/api/executions/:runId', { schema: executionContract.run }, async (request) => {
    const ctx = await requestContext(request, deps);
    return executionRunBody(ctx, request.params.runId);
  });

  app.post<RunParams & { Body: { status?: unknown; notes?: unknown } }>(
    '/api/executions/:runId/report',
    { schema: executionContract.report },
    async (request) => {
      const ctx = await requestContext(request, deps);
      const body = request.body ?? {};
      return toRunBody(await reportExecution(ctx, request.params.runId, body.status, body.notes));
    },
  );
};
