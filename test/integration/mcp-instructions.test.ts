import { createBlueprint } from '../fixtures/blueprints';
import { McpTestClient } from '../helpers/mcp-test-client';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * The server's `instructions` followed literally, as a new agent would: the call sequences are read out of
 * the instruction text itself (tool names, argument names, the first n, which answer field holds the
 * token, the stop condition, each step's submission fields), so a wrong sentence makes a wrong call and
 * the test fails with the server's own error.
 */
let server: TestServer;
let client: McpTestClient;
let instructions: string;
beforeAll(async () => {
  server = await startTestServer();
  client = await McpTestClient.connect(server.url, await server.rest.agentToken('literal'));
  instructions = client.client.getInstructions() ?? '';
});
afterAll(async () => {
  await client.close();
  await server.close();
});

/** The text of one section (a title line up to the next blank line). */
function section(title: string): string {
  const start = instructions.indexOf(`\n${title}\n`);
  if (start < 0) throw new Error(`the instructions have no "${title}" section`);
  const end = instructions.indexOf('\n\n', start + 1);
  return instructions.slice(start + title.length + 2, end < 0 ? undefined : end);
}

/** `tool {a, b: value, ...}` occurrences in a text: the tool and its argument list as written. */
function calls(text: string, tool: string): Array<Record<string, string>> {
  const found: Array<Record<string, string>> = [];
  const pattern = new RegExp(`${tool} \\{([^{}]*(?:\\{[^{}]*\\}[^{}]*)*)\\}`, 'g');
  for (const m of text.matchAll(pattern)) {
    const args: Record<string, string> = {};
    // Top-level "name" or "name: value" pairs (values may hold one nested {...}).
    for (const part of m[1]!.match(/[a-z_]+(?:: (?:\{[^{}]*\}|[^,{}]+))?/g) ?? []) {
      const [name, ...value] = part.split(': ');
      args[name!.trim()] = value.join(': ').trim();
    }
    found.push(args);
  }
  return found;
}

describe('the MCP instructions, followed to the letter', () => {
  it('execute a blueprint to its last step (the documented n, token field and stop condition)', async () => {
    const owner = await server.rest.agentToken('owner');
    const bp = await createBlueprint(server.rest, owner, { name: 'Followed literally' });
    const text = section('Executing');
    const [start] = calls(text, 'blueprint_execute_start');
    expect(start).toEqual({ blueprint_id: '' });
    const stepCalls = calls(text, 'blueprint_execute_step');
    const first = stepCalls.find((c) => /^\d+$/.test(c.n ?? ''));
    const repeat = stepCalls.find((c) => /^n \+ \d+$/.test(c.n ?? ''));
    if (!first || !repeat) throw new Error(`no first step call and no repeat rule in: ${text}`);
    const stop = /Stop when ([a-z_]+) is true/.exec(text);
    if (!stop) throw new Error('no stop condition');

    let answer = await client.ok('blueprint_execute_start', { blueprint_id: bp.id });
    const runId = answer.run_id;
    let n = Number(first.n);
    const increment = Number(/\d+$/.exec(repeat.n!)![0]);
    const seen: string[] = [];
    for (let calls = 0; calls < 20; calls++) {
      const args = { blueprint_id: bp.id, n, token: answer[first.token!] };
      const step = await client.call('blueprint_execute_step', args);
      if (step.isError) throw new Error(`following the instructions, step ${n} answered ${JSON.stringify(step.body)}`);
      answer = step.body;
      seen.push(answer.step.key);
      if (answer[stop[1]!] === true) break;
      n += increment;
    }
    expect(answer[stop[1]!]).toBe(true);
    expect(seen).toEqual(['schema', 'endpoints', 'pages']);
    const run = await client.ok('execution_get', { run_id: runId });
    expect(run).toMatchObject({ status: 'completed', steps_reached: 3, total_steps: 3 });
  });

  it("blueprint_execute_start's own description, followed to the letter, walks a run to its last step", async () => {
    const owner = await server.rest.agentToken('owner');
    const bp = await createBlueprint(server.rest, owner, { name: 'Described literally' });
    const description = (await client.client.listTools()).tools.find((t) => t.name === 'blueprint_execute_start')!.description!;
    // "call blueprint_execute_step with n = 1 and next_token ..., then n = 2 with that answer's next_token, ... until dn is true"
    const ns = [...description.matchAll(/\bn = (\d+)/g)].map((m) => Number(m[1]));
    const token = /with n = \d+ and ([a-z_]+)/.exec(description)?.[1];
    const stop = /until ([a-z_]+) is true/.exec(description)?.[1];
    if (ns.length < 2 || !token || !stop) throw new Error(`the description does not say how to walk a run: ${description}`);
    let answer = await client.ok('blueprint_execute_start', { blueprint_id: bp.id });
    const runId = answer.run_id;
    const seen: string[] = [];
    for (let n = ns[0]!, calls = 0; calls < 20 && answer[stop] !== true; n += ns[1]! - ns[0]!, calls++) {
      const step = await client.call('blueprint_execute_step', { blueprint_id: bp.id, n, token: answer[token] });
      if (step.isError) throw new Error(`following the description, step ${n} answered ${JSON.stringify(step.body)}`);
      answer = step.body;
      seen.push(answer.step.key);
    }
    expect(seen).toEqual(['schema', 'endpoints', 'pages']);
    expect(await client.ok('execution_get', { run_id: runId })).toMatchObject({ status: 'completed', steps_reached: 3 });
  });

  it('a run given up is reported as the instructions say, and completed is refused for it', async () => {
    const owner = await server.rest.agentToken('owner');
    const bp = await createBlueprint(server.rest, owner, { name: 'Given up' });
    const text = section('Executing');
    const [report] = calls(text, 'execution_report');
    expect(report).toEqual({ run_id: '', status: '"failed"', notes: '' });
    const started = await client.ok('blueprint_execute_start', { blueprint_id: bp.id });
    expect(text).toContain('"completed" is refused (CONFLICT)');
    const claimed = await client.call('execution_report', { run_id: started.run_id, status: 'completed' });
    expect(claimed).toMatchObject({ isError: true, body: { error: { code: 'CONFLICT' } } });
    const failed = await client.ok('execution_report', { run_id: started.run_id, status: JSON.parse(report!.status!), notes: 'stuck' });
    expect(failed).toMatchObject({ status: 'failed', notes: 'stuck' });
  });

  it('fork and compare, then export and import, with exactly the arguments the Forking and Files sections name', async () => {
    const owner = await server.rest.agentToken('literal owner');
    const bp = await createBlueprint(server.rest, owner, { name: 'Literal source' });
    const forking = section('Forking');
    const files = section('Files for coding agents');
    const [forkCall] = calls(forking, 'blueprint_fork');
    const [compareCall] = calls(forking, 'blueprint_compare');
    const [exportCall] = calls(files, 'blueprint_export');
    const [importCall] = calls(files, 'blueprint_import');
    expect([forkCall, compareCall].map((c) => Object.keys(c!))).toEqual([['blueprint_id'], ['blueprint_id']]);
    const mine = await client.ok('blueprint_fork', { blueprint_id: bp.id });
    expect(forking).toContain('forked_from set');
    expect(mine.forked_from).toMatchObject({ id: bp.id });
    expect(await client.ok('blueprint_compare', { blueprint_id: mine.id })).toMatchObject({ ahead: expect.anything() });
    // Every format the text lists is one the tool takes; the files it answers import back as the text says.
    const formats = [...exportCall!.format!.matchAll(/"([a-z-]+)"/g)].map((m) => m[1]!);
    expect(formats).toEqual(['agents-md', 'claude-md', 'cursor-rules', 'json']);
    expect(Object.keys(importCall!)).toEqual(['format', 'files']);
    for (const format of formats) {
      const exported = await client.ok('blueprint_export', { blueprint_id: mine.id, format });
      const made = await client.ok('blueprint_import', { format, files: exported.files });
      expect(made).toMatchObject({ forked_from: { id: mine.id }, modules: mine.modules, steps: mine.steps });
    }
  });

  it('create a blueprint with the documented 5 submissions, each with the token of the latest answer', async () => {
    const text = section('Creating a blueprint (the create tool has exactly 5 steps)');
    const [start] = calls(text, 'tool_operation_start');
    const [submitCall] = calls(text, 'tool_operation_submit');
    expect(Object.keys(submitCall!)).toEqual(['operation_id', 'token', 'submission']);
    // Values the test supplies for the fields the text names; a field the server does not accept fails the submission.
    const values: Record<string, unknown> = {
      key: 'cli',
      name: 'Literal CLI',
      summary: 'the command line',
      kind: 'service',
      depends_on: [],
      module_key: 'cli',
      title: 'Parse arguments',
      instructions: 'Use a maintained parser.',
      acceptance: ['--help prints usage'],
      description: 'Made by reading the instructions',
      tags: ['literal'],
      visibility: 'public',
    };
    const submissions: Array<Record<string, unknown>> = [];
    for (let k = 1; k <= 5; k++) {
      const line = new RegExp(`step ${k} \\{(.*)\\}\\s*$`, 'm').exec(text);
      if (!line) throw new Error(`no submission documented for step ${k}`);
      const body = line[1]!;
      const listed = /^"([a-z_]+)": \[\{([^}]*)\}\]$/.exec(body);
      const objectField = /^"([a-z_]+)": \{\.\.\.\}$/.exec(body);
      if (listed) {
        const item = Object.fromEntries(
          listed[2]!
            .split(',')
            .map((f) => f.trim().split(':')[0]!.trim())
            .map((f) => [f, values[f === 'key' && k === 2 ? 'step_key' : f] ?? 'parse']),
        );
        submissions.push({ [listed[1]!]: [item] });
      } else if (objectField) submissions.push({ [objectField[1]!]: {} });
      else submissions.push(Object.fromEntries([...body.matchAll(/"([a-z_]+)"/g)].filter((m) => m[1]! in values).map((m) => [m[1]!, values[m[1]!]])));
    }
    const toolType = JSON.parse(start!.tool_type!);
    let op = await client.ok('tool_operation_start', { tool_type: toolType, params: { description: 'a cli' } });
    for (const submission of submissions) {
      const answer = await client.call('tool_operation_submit', { operation_id: op.operation_id, token: op.token, submission });
      if (answer.isError) throw new Error(`step ${op.step} with ${JSON.stringify(submission)}: ${JSON.stringify(answer.body)}`);
      op = answer.body;
    }
    expect(text).toContain('When done is true, result.blueprint_ids holds the new blueprint');
    expect(op.done).toBe(true);
    const made = await client.ok('blueprint_get', { blueprint_id: op.result.blueprint_ids[0] });
    expect(made).toMatchObject({ name: 'Literal CLI', visibility: 'public', modules: [{ key: 'cli', summary: 'the command line' }] });
    expect(made.steps).toEqual([expect.objectContaining({ key: 'parse', module_key: 'cli', acceptance: ['--help prints usage'] })]);
  });
});
