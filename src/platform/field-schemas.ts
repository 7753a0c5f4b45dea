import type { JsonSchema } from './json-schema';

/**
 * JSON Schema of the plain fields that blueprints, architectures and teams share (a name, a description),
 * so every body and tool step that takes them applies the same bounds. Tags and visibility are the
 * blueprint area's (blueprint.contract.ts).
 */
export const nameField: JsonSchema = { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' };
export const descriptionField: JsonSchema = { type: 'string', maxLength: 5000 };

/** `field` with a default filled in by Ajv (`useDefaults`). */
export const withDefault = (field: JsonSchema, value: unknown): JsonSchema => ({ ...field, default: value });
