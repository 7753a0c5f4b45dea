import { blueprintBodySchema } from '../blueprints/blueprint.contract';
import { arrayOf, errors, obj, serviceChecked, str } from '../platform/contract';
import { idParam } from '../platform/http/routes';
import { exportFormats } from './transfer.format';

const tags = ['blueprints'];
const format = { type: 'string', enum: [...exportFormats] };
const files = arrayOf(obj({ path: str, content: str }));

export const transferContract = {
  export: {
    summary: 'A blueprint as the instruction files coding agents read: AGENTS.md, CLAUDE.md, Cursor rules or JSON',
    tags,
    params: idParam('id'),
    querystring: serviceChecked({ type: 'object', properties: { format } }),
    response: { 200: obj({ format: str, files }) },
  },
  import: {
    summary: 'Files (AGENTS.md, CLAUDE.md, Cursor rules, JSON) as a new blueprint; a fork when they name one the caller may read',
    tags,
    body: serviceChecked(
      obj({ format, files, name: str, description: str, tags: arrayOf(str), visibility: { type: 'string', enum: ['public', 'private'] } }, [
        'name',
        'description',
        'tags',
        'visibility',
      ]),
      { requireObject: true },
    ),
    response: { 201: blueprintBodySchema, ...errors(403) },
  },
};
