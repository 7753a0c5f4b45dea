import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { addNode, createArchitecture, createTeam, principalIdOf } from '../fixtures/architectures';
import { createBlueprint } from '../fixtures/blueprints';
import { createTeamBlueprint } from '../fixtures/teams';
import type { RestResponse } from '../helpers/rest';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * The role matrix, generated from docs/teams.md's role table, copied here verbatim: the only place the
 * expected permissions are written down. Every action is tried as owner, admin, member and viewer of
 * the team and as an outsider; each cell expects the action's success status when the table says yes,
 * 403 when it says no, and 404 for the outsider (who may not see the team or its private things).
 */
const design6 = `
| action | owner | admin | member | viewer |
|---|---|---|---|---|
| read team blueprints/architectures, audit log, analytics | yes | yes | yes | read only (no audit) |
| edit team blueprints/architectures, run INPLACE tools | yes | yes | yes | no |
| manage members (not the owner), conventions | yes | yes | no | no |
| delete team, change owner, transfer out | yes | no | no | no |
`;

const roles = ['owner', 'admin', 'member', 'viewer'] as const;
type Role = (typeof roles)[number];
type Who = Role | 'outsider';

/** Row title -> role -> the cell's text. */
function parseTable(markdown: string): Map<string, Record<Role, string>> {
  const lines = markdown.trim().split('\n').slice(2);
  return new Map(
    lines.map((line) => {
      const cells = line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
      return [cells[0]!, { owner: cells[1]!, admin: cells[2]!, member: cells[3]!, viewer: cells[4]! }];
    }),
  );
}
const table = parseTable(design6);
const row = (prefix: string) => {
  const found = [...table.entries()].find(([title]) => title.startsWith(prefix));
  if (!found) throw new Error(`no row "${prefix}" in DESIGN 6's table`);
  return found[1];
};

let server: TestServer;
const tokens = {} as Record<Who, string>;
const ids = {} as Record<Who, string>;
let teamId: string;
let teamBlueprint: any;
let teamArchitectureSlug: string;
let nodeId: string;

/** One action of the matrix: which row of the table rules it, what a success answers, and how to try it. */
interface Action {
  name: string;
  row: string;
  /** For the "read" row, whether this is the audit log (viewers: no). */
  audit?: boolean;
  success: number;
  attempt(who: Who): Promise<RestResponse>;
}

const actions: Action[] = [
  {
    name: 'read a team blueprint',
    row: 'read team',
    success: 200,
    attempt: (who) => server.rest.get(`/api/blueprints/${teamBlueprint.id}`, { token: tokens[who] }),
  },
  {
    name: 'read a team architecture',
    row: 'read team',
    success: 200,
    attempt: (who) => server.rest.get(`/api/architectures/${teamArchitectureSlug}`, { token: tokens[who] }),
  },
  {
    name: "list the team's blueprints",
    row: 'read team',
    success: 200,
    attempt: (who) => server.rest.get(`/api/teams/${teamId}/blueprints`, { token: tokens[who] }),
  },
  {
    name: 'edit a team blueprint (PATCH)',
    row: 'edit team',
    success: 200,
    attempt: (who) => server.rest.patch(`/api/blueprints/${teamBlueprint.id}`, { token: tokens[who], body: { description: `Described by ${who}` } }),
  },
  {
    name: 'edit a team architecture (layout)',
    row: 'edit team',
    success: 200,
    attempt: (who) =>
      server.rest.put(`/api/architectures/${teamArchitectureSlug}/layout`, { token: tokens[who], body: [{ nodeId, position: { x: 40, y: 80 } }] }),
  },
  {
    name: 'run an INPLACE tool (fuzz) on a team blueprint',
    row: 'edit team',
    success: 201,
    attempt: (who) => server.rest.post('/api/tools/operations', { token: tokens[who], body: { tool_type: 'fuzz', source_blueprint_ids: [teamBlueprint.id] } }),
  },
  {
    name: 'manage members (add one)',
    row: 'manage members',
    success: 201,
    attempt: async (who) => {
      const newcomer = await server.rest.agentSession('newcomer');
      return server.rest.post(`/api/teams/${teamId}/members`, { token: tokens[who], body: { principal_id: newcomer.id, role: 'viewer' } });
    },
  },
  {
    name: 'edit the conventions',
    row: 'manage members',
    success: 200,
    attempt: (who) => server.rest.patch(`/api/teams/${teamId}`, { token: tokens[who], body: { conventions: `Conventions set by ${who}` } }),
  },
  {
    name: 'delete the team',
    row: 'delete team',
    success: 204,
    attempt: async (who) => {
      const fresh = await fullTeam('Doomed');
      return server.rest.delete(`/api/teams/${fresh}`, { token: tokens[who] });
    },
  },
  {
    // DESIGN 12: the blueprint's owner, who must be a member or above of the receiving team.
    name: 'transfer their own blueprint into the team',
    row: 'edit team',
    success: 200,
    attempt: async (who) => {
      const own = await createBlueprint(server.rest, tokens[who], { name: `Own of ${who}`, visibility: 'private' });
      return server.rest.post(`/api/blueprints/${own.id}/transfer`, { token: tokens[who], body: { team_id: teamId } });
    },
  },
  {
    name: 'transfer a team blueprint out of the team',
    row: 'delete team',
    success: 200,
    attempt: async (who) => {
      // Owned by the member who created it in the team: owning it is not enough to take it out.
      const inTeam = await createTeamBlueprint(server.rest, tokens.member, teamId, { name: 'Leaving' });
      return server.rest.post(`/api/blueprints/${inTeam.id}/transfer`, { token: tokens[who], body: { team_id: null } });
    },
  },
  {
    name: 'read the audit log',
    row: 'read team',
    audit: true,
    success: 200,
    attempt: (who) => server.rest.get(`/api/teams/${teamId}/audit`, { token: tokens[who] }),
  },
  { name: 'read the analytics', row: 'read team', success: 200, attempt: (who) => server.rest.get(`/api/teams/${teamId}/analytics`, { token: tokens[who] }) },
];

function expectedStatus(action: Action, who: Who): number {
  if (who === 'outsider') return 404;
  const cell = row(action.row)[who];
  const allowed = cell === 'yes' || (cell === 'read only (no audit)' && !action.audit);
  return allowed ? action.success : 403;
}

/** A team with one principal in each role. */
async function fullTeam(name = 'Matrix'): Promise<string> {
  const team = await createTeam(
    server.rest,
    tokens.owner,
    [
      [ids.admin, 'admin'],
      [ids.member, 'member'],
      [ids.viewer, 'viewer'],
    ],
    name,
  );
  return team.id;
}

beforeAll(async () => {
  server = await startTestServer();
  for (const who of [...roles, 'outsider'] as const) {
    tokens[who] = await server.rest.agentToken(who);
    ids[who] = await principalIdOf(server.gql, tokens[who]);
  }
  teamId = await fullTeam();
  teamBlueprint = await createTeamBlueprint(server.rest, tokens.member, teamId, { name: 'Shared plan' });
  const arch = await createArchitecture(server.rest, tokens.member, { name: 'Shared diagram', visibility: 'private' });
  const moved = await server.rest.post(`/api/architectures/${arch.slug}/transfer`, { token: tokens.member, body: { team_id: teamId } });
  if (moved.status !== 200) throw new Error(`transfer architecture: ${moved.status}`);
  teamArchitectureSlug = arch.slug;
  nodeId = (await addNode(server.rest, tokens.member, arch.slug, { blueprint_id: teamBlueprint.id })).id;
});
afterAll(() => server.close());

describe('the role matrix of docs/teams.md', () => {
  it('covers every row of the table and every action the issue names', () => {
    expect([...table.keys()]).toHaveLength(4);
    for (const title of table.keys()) expect(actions.some((a) => title.startsWith(a.row))).toBe(true);
    expect(actions).toHaveLength(13);
  });

  const cells = actions.flatMap((action) => ([...roles, 'outsider'] as const).map((who) => [action.name, who, action] as const));
  it.each(cells)('%s as %s', async (_name, who, action) => {
    const res = await action.attempt(who);
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({
      status: expectedStatus(action, who),
      code: expectedStatus(action, who) >= 400 ? (expectedStatus(action, who) === 403 ? 'FORBIDDEN' : 'NOT_FOUND') : undefined,
    });
  });
});

describe('the same matrix over MCP (the tools call the same services)', () => {
  const mcpActions: Array<{ name: string; base: Action; tool: string; args: () => Record<string, unknown> }> = [
    {
      name: 'blueprint_get of a team blueprint',
      base: actions.find((a) => a.name === 'read a team blueprint')!,
      tool: 'blueprint_get',
      args: () => ({ blueprint_id: teamBlueprint.id }),
    },
    {
      name: 'tool_operation_start of an INPLACE tool',
      base: actions.find((a) => a.name.startsWith('run an INPLACE'))!,
      tool: 'tool_operation_start',
      args: () => ({ tool_type: 'fuzz', source_blueprint_ids: [teamBlueprint.id] }),
    },
  ];
  const cells = mcpActions.flatMap((a) => ([...roles, 'outsider'] as const).map((who) => [a.name, who, a] as const));
  it.each(cells)('%s as %s', async (_name, who, action) => {
    const client = new Client({ name: 'roles', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens[who]}` } } }),
    );
    try {
      const result = (await client.callTool({ name: action.tool, arguments: action.args() })) as { isError?: boolean; content: Array<{ text: string }> };
      const expected = expectedStatus(action.base, who);
      const code = result.isError ? JSON.parse(result.content[0]!.text).error.code : null;
      expect(code).toBe(expected < 400 ? null : expected === 403 ? 'FORBIDDEN' : 'NOT_FOUND');
    } finally {
      await client.close();
    }
  });
});
