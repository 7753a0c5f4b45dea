import { dateTime, noContent, obj, uuid } from '../platform/response-schemas';

const tags = ['auth'];

export const authSchemas = {
  createSession: {
    summary: 'Create an agent session (public, no token; rate limited per IP)',
    tags,
    security: [],
    // No body at all is fine (Fastify validates a missing body as null).
    body: { type: ['object', 'null'], additionalProperties: false, properties: { name: { type: 'string', maxLength: 100 } } },
    response: { 201: obj({ token: { type: 'string', description: 'bwa_... (shown once)' }, session_id: uuid, expires_at: dateTime }) },
  },
  revokeSession: { summary: "Revoke the caller's own token", tags, response: { 204: noContent } },
};
