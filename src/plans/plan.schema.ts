import type { JsonSchema } from '../platform/json-schema';

/** Keys are kebab-case so that plans can be combined by key (plan algebra). */
export const keyPattern = '^[a-z0-9]+(-[a-z0-9]+)*$';

export const moduleSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['key', 'name', 'kind'],
  properties: {
    key: { type: 'string', pattern: keyPattern, maxLength: 100 },
    name: { type: 'string', minLength: 1, maxLength: 200 },
    summary: { type: 'string', maxLength: 5000, default: '' },
    kind: { type: 'string', pattern: '^[a-z][a-z0-9_-]*$', maxLength: 40, description: 'A lowercase word: frontend, backend, service, data, infra...' },
    depends_on: { type: 'array', items: { type: 'string', pattern: keyPattern, maxLength: 100 }, uniqueItems: true, default: [] },
  },
};

export const stepSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['key', 'module_key', 'title', 'instructions'],
  properties: {
    key: { type: 'string', pattern: keyPattern, maxLength: 100 },
    module_key: { type: 'string', pattern: keyPattern, maxLength: 100 },
    title: { type: 'string', minLength: 1, maxLength: 300 },
    instructions: { type: 'string', maxLength: 50_000 },
    acceptance: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 2000 }, default: [] },
  },
};

export const freeObjectSchema: JsonSchema = { type: 'object' };
