import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { invalidAll, type ValidationIssue } from './errors';

export type { ValidationIssue };

/** One Ajv for the whole process: request bodies, tool params and step submissions are JSON Schema. */
export const ajv = new Ajv({ allErrors: true, strict: true, useDefaults: true, coerceTypes: false });
addFormats(ajv);

export type JsonSchema = Record<string, unknown>;

/** `/modules/0/depends_on` style paths, with the root named, e.g. `submission/modules/0/key`. */
export function issuesFrom(errors: ErrorObject[] | null | undefined, root: string): ValidationIssue[] {
  return (errors ?? []).map((e) => {
    // An empty root names top-level fields bare (`title`, not `/title`).
    let path = root ? root + e.instancePath : e.instancePath.slice(1);
    let message = e.message ?? 'is invalid';
    const child = (name: unknown) => (path ? `${path}/${String(name)}` : String(name));
    if (e.keyword === 'required') path = child(e.params.missingProperty);
    if (e.keyword === 'additionalProperties') {
      path = child(e.params.additionalProperty);
      message = 'is not a known property';
    }
    if (e.keyword === 'enum') message += `: ${(e.params.allowedValues as unknown[]).map(String).join(', ')}`;
    return { path, message };
  });
}

/** Throws 400 VALIDATION_FAILED naming every offending path; returns the (defaulted) value typed. */
export function assertValid<T>(validate: ValidateFunction, value: unknown, root: string): T {
  if (!validate(value)) {
    throw invalidAll(issuesFrom(validate.errors, root));
  }
  return value as T;
}

/** Compiles a schema (Ajv keeps every compiled schema object: use `validatorFor` for repeated use). */
export function compileSchema(schema: JsonSchema): ValidateFunction {
  return ajv.compile(schema);
}

const validatorsByText = new Map<string, ValidateFunction>();

/**
 * The validator of a schema, compiled once per distinct schema text. Tool steps build their schema
 * objects afresh on every call; keyed by identity, each request would compile again and Ajv's own cache
 * would grow without bound.
 */
export function validatorFor(schema: JsonSchema): ValidateFunction {
  const text = JSON.stringify(schema);
  let validate = validatorsByText.get(text);
  if (!validate) {
    validate = ajv.compile(schema);
    validatorsByText.set(text, validate);
  }
  return validate;
}

/** How many distinct schemas have been compiled through `validatorFor` (tests watch it stay flat). */
export function compiledValidatorCount(): number {
  return validatorsByText.size;
}
