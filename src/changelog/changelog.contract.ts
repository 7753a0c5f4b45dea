import { dateTime, errors, obj, page, pageQuerySchema, serviceChecked, str, uuid } from '../platform/contract';
import { defaultLimits, type Limits } from '../platform/config';
import { idParam } from '../platform/http/routes';

const tags = ['changelog'];

export const changelogEntrySchema = obj({ id: uuid, title: str, body: str, created_at: dateTime, updated_at: dateTime });
const entryParams = {
  type: 'object',
  required: ['id', 'entryId'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 200 }, entryId: { type: 'string', minLength: 1, maxLength: 200 } },
};

/**
 * What publishing and updating an entry take, with the configured bounds: checked by the service, and
 * advertised (with the default bounds) as the REST bodies and the MCP arguments.
 */
export function changelogInputs(limits: Pick<Limits, 'changelogTitleMax' | 'changelogBodyMax'>) {
  const fields = {
    title: { type: 'string', minLength: 1, maxLength: limits.changelogTitleMax, pattern: '\\S' },
    body: { type: 'string', maxLength: limits.changelogBodyMax },
  };
  /** Both fields (the body may be empty); an update takes one or both. */
  return { publish: obj(fields), update: { ...obj(fields, ['title', 'body']), minProperties: 1 } };
}
const documented = changelogInputs(defaultLimits);

export const changelogContract = {
  list: {
    summary: "A blueprint's changelog, newest first (public for a public blueprint)",
    tags,
    security: [],
    params: idParam('id'),
    querystring: pageQuerySchema,
    response: { 200: page(changelogEntrySchema) },
  },
  publish: {
    summary: 'Publish a changelog entry (owner)',
    tags,
    params: idParam('id'),
    body: serviceChecked(documented.publish),
    response: { 201: changelogEntrySchema, ...errors(403) },
  },
  update: {
    summary: 'Change the title and/or body of an entry (owner)',
    tags,
    params: entryParams,
    body: serviceChecked(documented.update),
    response: { 200: changelogEntrySchema, ...errors(403) },
  },
};
