import type { OperationView } from './operation.service';

/** The operation body of docs/api.md; `token` only where one was issued. */
export function toOperationBody(v: OperationView, withToken: boolean) {
  const op = v.operation;
  return {
    operation_id: op.id,
    tool_type: op.toolType,
    status: op.status,
    step: op.status === 'active' ? op.step : null,
    total_steps: op.totalSteps,
    step_title: v.stepTitle,
    prompt: v.prompt,
    submission_schema: v.submissionSchema,
    ...(withToken ? { token: v.token } : {}),
    done: v.done,
    result: op.result,
    source_blueprint_ids: op.sourceIds,
    params: op.params,
    created_at: op.createdAt.toISOString(),
    updated_at: op.updatedAt.toISOString(),
  };
}
