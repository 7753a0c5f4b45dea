import { dateTime, errors, obj, page, pageQuerySchema, serviceChecked, str, uuid } from '../platform/contract';
import { idParam } from '../platform/routes';

const tags = ['changelog'];

export const changelogEntrySchema = obj({ id: uuid, title: str, body: str, created_at: dateTime, updated_at: dateTime });
const entryParams = {
  type: 'object',
  required: ['id', 'entryId'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 200 }, entryId: { type: 'string', minLength: 1, maxLength: 200 } },
};
const title = { type: 'string', minLength: 1, maxLength: 200 };
const body = { type: 'string', maxLength: 100_000 };

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
    body: serviceChecked(obj({ title, body })),
    response: { 201: changelogEntrySchema, ...errors(403) },
  },
  update: {
    summary: 'Change the title and/or body of an entry (owner)',
    tags,
    params: entryParams,
    body: serviceChecked({ ...obj({ title, body }, ['title', 'body']), minProperties: 1 }),
    response: { 200: changelogEntrySchema, ...errors(403) },
  },
};
