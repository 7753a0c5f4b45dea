import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { validationFailed } from './errors';

/** One Ajv for the whole process: request bodies, tool params and step submissions are JSON Schema. */
export const ajv = new Ajv({ allErrors: true, strict: true, useDefaults: true, coerceTypes: false });
addFormats(ajv);

export type JsonSchema = Record<string, unknown>;

export interface ValidationIssue {
  path: string;
  message: string;
}

/** `/modules/0/depends_on` style paths, with the root named, e.g. `submission/modules/0/key`. */
export function issuesFrom(errors: ErrorObject[] | null | undefined, root: string): ValidationIssue[] {
  return (errors ?? []).map((e) => {
    let path = root + e.instancePath;
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') path += `/${String(e.params.missingProperty)}`;
    if (e.keyword === 'additionalProperties') {
      path += `/${String(e.params.additionalProperty)}`;
      message = 'is not a known property';
    }
    if (e.keyword === 'enum') message += `: ${(e.params.allowedValues as unknown[]).map(String).join(', ')}`;
    return { path, message };
  });
}

/** Throws 400 VALIDATION_FAILED naming every offending path; returns the (defaulted) value typed. */
export function assertValid<T>(validate: ValidateFunction, value: unknown, root: string): T {
  if (!validate(value)) {
    const issues = issuesFrom(validate.errors, root);
    const first = issues[0]!;
    throw validationFailed(`${first.path} ${first.message}`, { issues });
  }
  return value as T;
}

/** Compiles once per schema object (Ajv caches by identity). */
export function compileSchema(schema: JsonSchema): ValidateFunction {
  return ajv.compile(schema);
}
