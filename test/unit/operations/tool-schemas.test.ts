import 'reflect-metadata';
import { toolDefinitions } from '../../../src/operations/tools';
import type { ToolContext } from '../../../src/operations/tool-definition';
import { compileSchema } from '../../../src/platform/json-schema';

// Schemas compile lazily on first use; one Ajv strict-mode mistake would otherwise surface as a 500.
describe.each([...toolDefinitions.values()].map((def) => [def.type, def] as const))('%s', (_type, def) => {
  it('has params and static submission schemas that compile in strict mode', () => {
    expect(() => compileSchema(def.paramsSchema)).not.toThrow();
    // Step lists depend only on sources and params; no tool here reads them to list its steps.
    for (const step of def.steps({ sources: [], params: {}, state: {} } as unknown as ToolContext)) {
      if (typeof step.submissionSchema !== 'function') expect(() => compileSchema(step.submissionSchema as Record<string, unknown>)).not.toThrow();
    }
  });
});
