import { blueprintBodySchema, cardSchema } from '../blueprints/blueprint.schemas';
import { arrayOf, obj, page, pageQuerySchema, uuid } from '../platform/response-schemas';
import { idParam } from '../platform/routes';
import { LineageKind } from './lineage-link.entity';

const tags = ['lineage'];
const related = arrayOf(obj({ kind: { type: 'string', enum: Object.values(LineageKind) }, blueprint: cardSchema }));

export const lineageSchemas = {
  forks: {
    summary: 'Forks of a blueprint the caller may see, oldest first',
    tags,
    params: idParam('id'),
    querystring: pageQuerySchema,
    response: { 200: page(blueprintBodySchema) },
  },
  lineage: {
    summary: 'Direct parents (forked from, bred from) and children (forks, offspring) the caller may see',
    tags,
    params: idParam('id'),
    response: { 200: obj({ blueprint_id: uuid, parents: related, children: related }) },
  },
};
