import { blueprintBodySchema } from '../blueprints/blueprint.contract';
import { dateTime, errors, freeObject, int, obj, page, pageQuerySchema, serviceChecked, uuid } from '../platform/contract';
import { planEditSchema } from './plan-edit.service';
import { idParam } from '../platform/http/routes';

export const versionBodySchema = obj({
  number: int,
  created_at: dateTime,
  author_id: uuid,
  cause: { type: 'string', description: 'create, fork, edit, rollback or the tool type that wrote it' },
  changes: { ...freeObject, description: 'what changed: sections touched, modules/steps added, removed, changed' },
});

export const versionContract = {
  list: {
    summary: "The plan's history, newest first (owner and team editors)",
    tags: ['blueprints'],
    params: idParam('id'),
    querystring: pageQuerySchema,
    response: { 200: page(versionBodySchema), ...errors(403) },
  },
  updatePlan: {
    summary: 'Replace the plan (owner and team editors); 409 with details.current_version when base_version is stale',
    tags: ['blueprints'],
    params: idParam('id'),
    body: serviceChecked(planEditSchema),
    response: { 200: blueprintBodySchema, ...errors(403, 409) },
  },
};
