import { blueprintBodySchema, cardSchema, teamBlueprintItem } from '../blueprints/blueprint.contract';
import { arrayOf, errors, obj, page, pageQuerySchema, str, uuid } from '../platform/contract';
import { idParam } from '../platform/http/routes';
import { LineageKind } from './lineage-link.entity';

const tags = ['lineage'];
/** An item of the forks list: a team-list item (`toForkItem` builds it so) and `forked_from`; never the plan. */
const forkItem = obj({
  ...(teamBlueprintItem.properties as Record<string, object>),
  forked_from: obj({ id: uuid, slug: str, name: str }),
});
const related = arrayOf(obj({ kind: { type: 'string', enum: Object.values(LineageKind) }, blueprint: cardSchema }));

export const lineageContract = {
  fork: {
    summary: 'Fork a blueprint: a copy owned by the caller, with lineage recorded',
    // Listed with the blueprint's own endpoints in the reference, as before fork creation moved here.
    tags: ['blueprints'],
    params: idParam('id'),
    response: { 201: blueprintBodySchema, ...errors(403) },
  },
  forks: {
    summary: 'Forks of a blueprint the caller may see, oldest first, as cards (never plans)',
    tags,
    params: idParam('id'),
    querystring: pageQuerySchema,
    response: { 200: page(forkItem) },
  },
  lineage: {
    summary: 'Direct parents (forked from, bred from) and children (forks, offspring) the caller may see',
    tags,
    params: idParam('id'),
    response: { 200: obj({ blueprint_id: uuid, parents: related, children: related }) },
  },
};
