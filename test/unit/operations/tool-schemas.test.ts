import 'reflect-metadata';
import { toolDefinitions } from '../../../src/operations/tools';
import type { ToolContext } from '../../../src/operations/tool-definition';
import { toolTypes } from '../../../src/operations/tool-types';
import { compileSchema, compiledValidatorCount, validatorFor } from '../../../src/platform/json-schema';

// Schemas compile lazily on first use; one Ajv strict-mode mistake would otherwise surface as a 500.
describe.each([...toolDefinitions.values()].map((def) => [def.type, def] as const))('%s', (_type, def) => {
  it('has params and static submission schemas that compile in strict mode', () => {
    expect(() => compileSchema(def.paramsSchema)).not.toThrow();
    // Step lists depend only on sources and params; no tool here reads them to list its steps.
    for (const step of def.steps({ sources: [], params: {}, state: {} } as unknown as ToolContext)) {
      expect(() => compileSchema(step.submissionSchema)).not.toThrow();
    }
  });
});

it('registers a definition for each of the 25 tool types, and for nothing else', () => {
  expect(toolTypes).toHaveLength(25);
  expect([...toolDefinitions.keys()].sort()).toEqual([...toolTypes].sort());
  for (const [type, def] of toolDefinitions) expect(def.type).toBe(type);
});

it('compiles each step schema once, however often the steps are listed', () => {
  const ctx = { sources: [], params: {}, state: {} } as unknown as ToolContext;
  const validateAll = () => {
    for (const def of toolDefinitions.values()) for (const step of def.steps(ctx)) validatorFor(step.submissionSchema);
  };
  validateAll();
  const compiled = compiledValidatorCount();
  validateAll();
  validateAll();
  expect(compiledValidatorCount()).toBe(compiled);
});
