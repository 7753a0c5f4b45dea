import { dateTime, errors, int, noContent, obj, page, pageQuerySchema, serviceChecked, str, uuid } from '../platform/contract';
import { idParam } from '../platform/routes';

const tags = ['reviews'];
const rating = { type: 'integer', minimum: 1, maximum: 5 };
const reviewBody = { type: 'string', maxLength: 10_000 };

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
    body: serviceChecked(obj({ rating, body: reviewBody })),
    response: { 201: reviewBodySchema, ...errors(403, 409) },
  },
  update: {
    summary: 'Change your review of a blueprint',
    tags,
    params: idParam('id'),
    body: serviceChecked(obj({ rating, body: reviewBody }, ['rating', 'body'])),
    response: { 200: reviewBodySchema },
  },
  remove: { summary: 'Delete your review of a blueprint', tags, params: idParam('id'), response: { 204: noContent } },
};
