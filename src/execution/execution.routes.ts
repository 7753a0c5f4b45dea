import { getBlueprint } from '../blueprints/blueprint.service';
import { requireViewer } from '../auth/auth.service';
import { requestContext } from '../platform/http';
import { pageFromQuery } from '../platform/pagination';
import type { RouteModule } from '../platform/routes';
import { executionSchemas } from './execution.schemas';
import { executionsOf, executionStatsOf } from './execution.history';
import { executionStep, getExecutionRun, reportExecution, startExecution } from './execution.service';
import { toRunBody, toStartBody, toStatsBody, toStepBody } from './execution.wire';

type IdParams = { Params: { id: string } };
type RunParams = { Params: { runId: string } };

/** Execution over REST. */
export const executionRoutes: RouteModule = (app, deps) => {
  app.get<IdParams>('/api/blueprints/:id/start', { schema: executionSchemas.start }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toStartBody(await startExecution(ctx, request.params.id));
  });

  app.get<{ Params: { id: string; n: string }; Querystring: { token?: string } }>(
    '/api/blueprints/:id/step/:n',
    { schema: executionSchemas.step },
    async (request) => {
      const ctx = await requestContext(request, deps);
      return toStepBody(await executionStep(ctx, request.params.id, request.params.n, request.query.token));
    },
  );

  app.get<IdParams & { Querystring: { limit?: string; offset?: string } }>(
    '/api/blueprints/:id/executions',
    { schema: executionSchemas.history },
    async (request) => {
      const ctx = await requestContext(request, deps);
      requireViewer(ctx);
      const page = pageFromQuery(request.query, deps.config.limits);
      const bp = await getBlueprint(ctx, request.params.id);
      const { items, total } = await executionsOf(ctx, bp, page);
      return { items: items.map(toRunBody), total, ...page, stats: toStatsBody(executionStatsOf(bp)) };
    },
  );

  app.get<RunParams>('/api/executions/:runId', { schema: executionSchemas.run }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toRunBody(await getExecutionRun(ctx, request.params.runId));
  });

  app.post<RunParams & { Body: { status?: unknown; notes?: unknown } }>(
    '/api/executions/:runId/report',
    { schema: executionSchemas.report },
    async (request) => {
      const ctx = await requestContext(request, deps);
      const body = request.body ?? {};
      return toRunBody(await reportExecution(ctx, request.params.runId, body.status, body.notes));
    },
  );
};
