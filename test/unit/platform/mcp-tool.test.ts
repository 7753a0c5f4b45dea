import { args, nullable, obj, pageArgs, str } from '../../../src/platform/contract';
import { defaultLimits } from '../../../src/platform/config';
import { mcpTool, toolInput, toolOutput } from '../../../src/platform/mcp-tool';

describe('toolOutput', () => {
  it('opens every object of a contract response schema and keeps the rest', () => {
    const rest = obj({ id: { type: 'string', format: 'uuid' }, parent: nullable(obj({ id: str })), items: { type: 'array', items: obj({ key: str }) } });
    expect(toolOutput(rest)).toEqual({
      type: 'object',
      required: ['id', 'parent', 'items'],
      properties: {
        id: { type: 'string', format: 'uuid' },
        parent: { anyOf: [{ type: 'object', required: ['id'], properties: { id: str } }, { type: 'null' }] },
        items: { type: 'array', items: { type: 'object', required: ['key'], properties: { key: str } } },
      },
    });
  });

  it('is what mcpTool advertises', () => {
    const tool = mcpTool({ name: 'x_get', description: 'x', input: args({}), output: obj({ id: str }), readOnly: true, handler: async () => ({}) });
    expect(tool.output).toEqual({ type: 'object', required: ['id'], properties: { id: str } });
  });
});

describe('toolInput', () => {
  it('gives the page size the configured bounds and default', () => {
    const input = args({ ...pageArgs });
    expect((toolInput(input, { ...defaultLimits, pageMax: 7, pageDefault: 3 }).properties as Record<string, unknown>).limit).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 7,
      default: 3,
      description: 'Page size, 1-7.',
    });
    expect((toolInput(input, { ...defaultLimits, pageMax: 100, pageDefault: 20 }).properties as Record<string, { maximum: number }>).limit!.maximum).toBe(100);
  });

  it('derives the bounds of an input given as a function from the limits, one schema object per limits', () => {
    const input = (limits: typeof defaultLimits) => args({ message: { type: 'string', maxLength: limits.broadcastMessageMax } });
    const small = { ...defaultLimits, broadcastMessageMax: 12 };
    const schema = toolInput(input, small);
    expect(schema.properties).toEqual({ message: { type: 'string', maxLength: 12 } });
    expect(toolInput(input, small)).toBe(schema);
    expect((toolInput(input, defaultLimits).properties as Record<string, { maxLength: number }>).message!.maxLength).toBe(defaultLimits.broadcastMessageMax);
  });

  it('leaves a schema without a page size as it is', () => {
    const input = args({ limit: { type: 'integer', minimum: 1, maximum: 5 } });
    expect(toolInput(input, { ...defaultLimits, pageMax: 100, pageDefault: 20 })).toBe(input);
  });
});
