import type { Blueprint } from '../blueprints/blueprint.entity';
import type { JsonSchema } from '../platform/json-schema';

/** A REPORT tool's result document: what `GET /api/tools/operations/:id` and `operation(id){ result }` return. */
export function reportResult(report: Record<string, unknown>): Record<string, unknown> {
  return { report };
}

/** How a report names a blueprint. */
export function blueprintRef(bp: Blueprint) {
  return { id: bp.id, slug: bp.slug, name: bp.name };
}

/** The submission of a report's closing step: the agent's prose, plus tool-specific properties. */
export function narrativeSchema(field: string, extra: Record<string, JsonSchema> = {}, required: string[] = []): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: [field, ...required],
    properties: { [field]: { type: 'string', minLength: 1, maxLength: 20_000, pattern: '\\S' }, ...extra },
  };
}

/** Floats in reports are rounded so that equal inputs print equal numbers. */
export function round(value: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
