import { dateTime, errors, int, noContent, nullable, obj, page, pageQuerySchema, serviceChecked, str, uuid } from '../platform/contract';
import { idParam } from '../platform/http/routes';

const tags = ['auth'];

export const authContract = {
  createSession: {
    summary: 'Create an agent session (public, no token; rate limited per IP)',
    tags,
    security: [],
    // No body at all is fine (Fastify validates a missing body as null).
    body: { type: ['object', 'null'], additionalProperties: false, properties: { name: { type: 'string', maxLength: 100 } } },
    response: { 201: obj({ token: { type: 'string', description: 'bwa_... (shown once)' }, session_id: uuid, expires_at: dateTime }) },
  },
  revokeSession: { summary: "End the caller's own agent session (other token kinds: 400)", tags, response: { 204: noContent } },
};

const signedIn = obj({ user_id: uuid, username: str, token: { type: 'string', description: 'bws_... (shown once)' }, expires_at: dateTime });
const credentials = serviceChecked(obj({ username: { type: 'string', maxLength: 200 }, password: { type: 'string', maxLength: 200 } }));
const tokenHead = {
  id: uuid,
  name: str,
  scope: { type: 'string', enum: ['read', 'write'] },
  prefix: str,
  created_at: dateTime,
  expires_at: nullable(dateTime),
};
const accountTags = ['accounts'];

/** People: sign-up, sign-in, sign-out and account tokens (claiming an agent's work: src/claims). */
export const accountContract = {
  signUp: {
    summary: 'Create an account and sign in (public; rate limited per IP)',
    tags: accountTags,
    security: [],
    body: credentials,
    response: { 201: signedIn, ...errors(409) },
  },
  signIn: { summary: 'Sign in (public; repeated failures answer 429)', tags: accountTags, security: [], body: credentials, response: { 200: signedIn } },
  signOut: { summary: 'End the sign-in session of the presented token', tags: accountTags, response: { 204: noContent } },
  createToken: {
    summary: 'Create an account token (the secret is shown once)',
    tags: accountTags,
    body: serviceChecked(obj({ name: str, scope: { type: 'string', enum: ['read', 'write'] }, expires_in_days: int }, ['expires_in_days'])),
    response: { 201: obj({ ...tokenHead, token: { type: 'string', description: 'bwu_... (shown once)' } }), ...errors(403, 409) },
  },
  listTokens: {
    summary: "The account's tokens (never their secrets)",
    tags: accountTags,
    querystring: pageQuerySchema,
    response: { 200: page(obj({ ...tokenHead, last_used_at: nullable(dateTime) })), ...errors(403) },
  },
  revokeToken: { summary: 'Revoke one of the account tokens', tags: accountTags, params: idParam('id'), response: { 204: noContent, ...errors(403) } },
};
