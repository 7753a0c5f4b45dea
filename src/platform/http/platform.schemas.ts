import { errorBodySchema, errors, freeObject, obj, str } from '../contract';

/** `GET /healthz`: public; 200 once the database answers. */
export const healthzSchema = {
  summary: 'Liveness and database readiness',
  tags: ['platform'],
  security: [],
  response: {
    200: obj(
      {
        status: { type: 'string', enum: ['ok'] },
        backplane: {
          ...obj({ name: { type: 'string', enum: ['postgres', 'nats'] }, state: { type: 'string', enum: ['up', 'down'] } }),
          description:
            'What carries events between instances (NATS JetStream with `NATS_URL`, else PostgreSQL LISTEN/NOTIFY) and whether this instance is connected to it',
        },
        redis: {
          ...obj({ state: { type: 'string', enum: ['up', 'down'] } }),
          description:
            'Only with `REDIS_URL`: whether Redis answers. While it is down the rate limits are counted in each instance (still enforced, no longer shared) and requests do not wait for Redis',
        },
      },
      ['redis'],
    ),
    503: {
      ...errorBodySchema,
      description: 'The database does not answer (its own connection, short timeout); retry after `Retry-After` seconds',
      required: ['status', 'error'],
      properties: { status: { type: 'string', enum: ['unavailable'] }, ...(errorBodySchema.properties as object) },
    },
  },
};

/** `GET /metrics`: public unless `METRICS_TOKEN` is set; Prometheus text exposition format. */
export const metricsSchema = {
  summary: 'Prometheus metrics (text exposition format 0.0.4)',
  description:
    'Public unless the deployment sets `METRICS_TOKEN`: then only `Authorization: Bearer <that token>` reads it (else 401). At most `METRICS_PER_MINUTE` requests per minute per address (429).',
  tags: ['platform'],
  security: [],
  response: { 200: { type: 'string', description: 'text/plain; version=0.0.4' }, ...errors(401, 429) },
};

const graphqlBody = obj(
  {
    query: str,
    operationName: { type: ['string', 'null'] },
    variables: { type: ['object', 'null'], additionalProperties: true },
    extensions: { type: ['object', 'null'], additionalProperties: true },
  },
  ['operationName', 'variables', 'extensions'],
);

/** Errors of a GraphQL answer: `errors[].extensions.code` uses the REST error codes. */
const graphqlResult = {
  type: 'object',
  additionalProperties: false,
  properties: {
    data: { type: ['object', 'null'], additionalProperties: true },
    errors: { type: 'array', items: freeObject },
    extensions: freeObject,
  },
};

/**
 * A failure at `/graphql`: the GraphQL shape (`errors[].extensions.code`) when the server's own checks refuse
 * the request (input gate, rate limit, access rule, outage), or the REST error body (e.g. a body too large,
 * refused before GraphQL sees it).
 */
const graphqlFailures = Object.fromEntries(
  Object.entries(errors(400, 401, 403, 404, 413, 429, 500, 503)).map(([status, rest]) => [
    status,
    {
      description: (rest as { description?: string }).description,
      anyOf: [
        { ...graphqlResult, required: ['errors'] },
        { ...rest, description: undefined },
      ],
    },
  ]),
);

/**
 * `/graphql`: GraphQL over HTTP (Apollo Server). A browser GET (`Accept: text/html`) gets the GraphiQL IDE;
 * subscriptions use graphql-ws on the same path (WebSocket). Requests are checked by GraphQL itself, and
 * the answer is serialized by Apollo (a string), so both are documented here, not re-checked.
 */
export const graphqlRouteSchemas = {
  get: {
    summary: 'GraphQL query over GET (a browser asking for text/html gets the GraphiQL IDE)',
    tags: ['graphql'],
    querystring: {
      type: 'object',
      'x-checked-by-service': true,
      properties: { query: str, operationName: str, variables: { type: 'string', description: 'JSON' }, extensions: { type: 'string', description: 'JSON' } },
    },
    response: { 200: graphqlResult, ...graphqlFailures },
  },
  post: {
    summary: 'GraphQL over HTTP: queries and mutations (the primary API)',
    tags: ['graphql'],
    body: { ...graphqlBody, 'x-checked-by-service': true },
    response: { 200: graphqlResult, ...graphqlFailures },
  },
};
