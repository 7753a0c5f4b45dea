import type { JsonSchema } from './json-schema';

/**
 * JSON Schema of the fields that blueprints, architectures and teams share, so every body and tool step
 * that takes them applies the same bounds.
 */
export const nameField: JsonSchema = { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' };
export const descriptionField: JsonSchema = { type: 'string', maxLength: 5000 };
export const visibilityField: JsonSchema = { type: 'string', enum: ['public', 'private'] };
export const tagField: JsonSchema = { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$', maxLength: 40 };
export const tagsField: JsonSchema = { type: 'array', items: tagField, maxItems: 20, uniqueItems: true };

/** `field` with a default filled in by Ajv (`useDefaults`). */
export const withDefault = (field: JsonSchema, value: unknown): JsonSchema => ({ ...field, default: value });
