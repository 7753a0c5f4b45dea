import { dateTime, errors, int, noContent, obj, page, pageQuerySchema, serviceChecked, str, uuid } from '../platform/contract';
import { idParam } from '../platform/http/routes';

const tags = ['reviews'];
const rating = { type: 'integer', minimum: 1, maximum: 5, description: '1 (poor) to 5 (excellent).' };
const reviewBody = { type: 'string', maxLength: 10_000 };

/** What the review operations take, checked by the service and advertised as REST bodies and MCP arguments. */
export const reviewInputs = {
  create: obj({ rating, body: reviewBody }),
  /** The rating and/or the text. */
  update: { ...obj({ rating, body: reviewBody }, ['rating', 'body']), minProperties: 1 },
};

export const reviewBodySchema = obj({
  id: uuid,
  blueprint_id: uuid,
  reviewer: obj({ id: uuid, name: str }),
  rating: int,
  body: str,
  created_at: dateTime,
  updated_at: dateTime,
});

export const reviewContract = {
  list: {
    summary: "A blueprint's reviews, newest first",
    tags,
    params: idParam('id'),
    querystring: pageQuerySchema,
    response: { 200: page(reviewBodySchema) },
  },
  create: {
    summary: 'Review a blueprint (one review per person; not your own)',
    tags,
    params: idParam('id'),
    body: serviceChecked(reviewInputs.create),
    response: { 201: reviewBodySchema, ...errors(403, 409) },
  },
  update: {
    summary: 'Change your review of a blueprint',
    tags,
    params: idParam('id'),
    body: serviceChecked(reviewInputs.update),
    response: { 200: reviewBodySchema },
  },
  remove: { summary: 'Delete your review of a blueprint', tags, params: idParam('id'), response: { 204: noContent } },
};
