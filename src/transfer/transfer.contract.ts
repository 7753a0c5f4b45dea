import { blueprintBodySchema, tagsField, visibilityField } from '../blueprints/blueprint.contract';
import { arrayOf, errors, obj, serviceChecked, str } from '../platform/contract';
import { descriptionField, nameField } from '../platform/field-schemas';
import { idParam } from '../platform/http/routes';
import type { JsonSchema } from '../platform/json-schema';
import { exportFormats } from './transfer.format';

const tags = ['blueprints'];

export const MAX_IMPORT_FILES = 200;
export const MAX_FILE_CHARS = 1_000_000;

export const exportFormat = {
  type: 'string',
  enum: [...exportFormats],
  description: 'agents-md (AGENTS.md), claude-md (CLAUDE.md), cursor-rules (.cursor/rules/*.mdc) or json.',
};
const files = arrayOf(obj({ path: str, content: str }));

/** What an import takes: checked by the service, the REST body and the MCP tool's arguments. */
export const importInput: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['format', 'files'],
  properties: {
    format: exportFormat,
    files: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_IMPORT_FILES,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['path', 'content'],
        properties: { path: { type: 'string', minLength: 1, maxLength: 300 }, content: { type: 'string', maxLength: MAX_FILE_CHARS } },
      },
    },
    name: nameField,
    description: descriptionField,
    tags: tagsField,
    visibility: visibilityField,
  },
};

export const transferContract = {
  export: {
    summary: 'A blueprint as the instruction files coding agents read: AGENTS.md, CLAUDE.md, Cursor rules or JSON',
    tags,
    params: idParam('id'),
    querystring: serviceChecked({ type: 'object', properties: { format: exportFormat } }),
    response: { 200: obj({ format: str, files }) },
  },
  import: {
    summary: 'Files (AGENTS.md, CLAUDE.md, Cursor rules, JSON) as a new blueprint; a fork when they name one the caller may read',
    tags,
    body: serviceChecked(importInput, { requireObject: true }),
    response: { 201: blueprintBodySchema, ...errors(403) },
  },
};
