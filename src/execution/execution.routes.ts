import { getBlueprint } from '../blueprints/blueprint.service';
import { requireViewer } from '../auth/auth.service';
import { requestContext } from '../platform/http';
import { pageFromQuery } from '../platform/pagination';
import { idParam, pageQuery, type RouteModule } from '../platform/routes';
import { executionsOf, executionStatsOf } from './execution.history';
import { executionStep, getExecutionRun, reportExecution, startExecution } from './execution.service';
import { toRunBody, toStartBody, toStatsBody, toStepBody } from './execution.wire';

type IdParams = { Params: { id: string } };
type RunParams = { Params: { runId: string } };

const stepParams = {
  type: 'object',
  required: ['id', 'n'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 200 }, n: { type: 'string', maxLength: 20 } },
};

/** Execution over REST. */
export const executionRoutes: RouteModule = (app, deps) => {
  // A GET that records a run: a write for the access rule (read tokens may not start runs).
  app.get<IdParams>('/api/blueprints/:id/start', { config: { write: true }, schema: { params: idParam('id') } }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toStartBody(await startExecution(ctx, request.params.id));
  });

  app.get<{ Params: { id: string; n: string }; Querystring: { token?: string } }>(
    '/api/blueprints/:id/step/:n',
    { config: { write: true }, schema: { params: stepParams, querystring: { type: 'object', properties: { token: { type: 'string' } } } } },
    async (request) => {
      const ctx = await requestContext(request, deps);
      return toStepBody(await executionStep(ctx, request.params.id, request.params.n, request.query.token));
    },
  );

  app.get<IdParams & { Querystring: { limit?: string; offset?: string } }>(
    '/api/blueprints/:id/executions',
    { schema: { params: idParam('id'), querystring: pageQuery } },
    async (request) => {
      const ctx = await requestContext(request, deps);
      requireViewer(ctx);
      const page = pageFromQuery(request.query, deps.config.limits);
      const bp = await getBlueprint(ctx, request.params.id);
      const { items, total } = await executionsOf(ctx, bp, page);
      return { items: items.map(toRunBody), total, ...page, stats: toStatsBody(executionStatsOf(bp)) };
    },
  );

  app.get<RunParams>('/api/executions/:runId', { schema: { params: idParam('runId') } }, async (request) => {
    const ctx = await requestContext(request, deps);
    return toRunBody(await getExecutionRun(ctx, request.params.runId));
  });

  app.post<RunParams & { Body: { status?: unknown; notes?: unknown } }>(
    '/api/executions/:runId/report',
    { schema: { params: idParam('runId'), body: { type: 'object' } } },
    async (request) => {
      const ctx = await requestContext(request, deps);
      const body = request.body ?? {};
      return toRunBody(await reportExecution(ctx, request.params.runId, body.status, body.notes));
    },
  );
};
