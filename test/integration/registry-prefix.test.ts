import { randomUUID } from 'node:crypto';
import { RegistryDocument } from '../generated/graphql';
import { McpTestClient } from '../helpers/mcp-test-client';
import { startTestServer, type TestServer } from '../helpers/server';
import { SqlClient } from '../helpers/sql';

/**
 * Word prefixes in the registry's keyword search (src/registry/keyword-query.ts): the last word of `q`
 * is a prefix, so a person typing "pay" finds "Payments", over REST, GraphQL and MCP, ranked by the same
 * `ts_rank_cd` as whole words. Every blueprint here carries one tag of this file, and every search filters
 * by it, so other rows of the database cannot change the answers.
 */
let server: TestServer;
let sql: SqlClient;
let reader: string;
const tag = `prefix-${randomUUID().slice(0, 8)}`;

async function blueprint(name: string, description: string, stars = 0): Promise<void> {
  await sql.query(
    `insert into blueprint (id, slug, name, description, tags, visibility, owner_id, plan, stars_count, created_at, updated_at)
     values (gen_random_uuid(), $1, $2, $3, array[$4], 'public', (select id from principal where name = 'prefix owner'),
             '{"modules":[],"steps":[],"configuration":{},"designSystem":{}}'::jsonb, $5, now(), now())`,
    [`${tag}-${randomUUID().slice(0, 8)}`, name, description, tag, stars],
  );
}

beforeAll(async () => {
  server = await startTestServer();
  sql = await SqlClient.connect(server.databaseUrl);
  reader = await server.rest.agentToken('reader');
  await sql.query("insert into principal (id, kind, name) values (gen_random_uuid(), 'agent', 'prefix owner')");
  await blueprint('Payments gateway', 'Takes card payments', 1);
  await blueprint('Invoice kit', 'Sends invoices; customers pay by link', 5);
  await blueprint('Billing portal', 'Usage based billing', 3);
  await blueprint('Shop front', 'A storefront with a cart', 9);
});
afterAll(async () => {
  await sql.close();
  await server.close();
});

const names = (items: Array<{ name: string }>) => items.map((i) => i.name);
const rest = async (q: string, extra = '') => {
  const res = await server.rest.get(`/api/registry?tags=${tag}&q=${encodeURIComponent(q)}${extra}`, { token: reader });
  expect(res.status).toBe(200);
  return names(res.body.items);
};

describe('registry keyword prefixes over REST', () => {
  it('find a word from its first letters, ranked as whole words are (name above description)', async () => {
    // "Payments" in a name (weight A) ranks above "pay" in a description (weight C), whatever the stars.
    expect(await rest('pay')).toEqual(['Payments gateway', 'Invoice kit']);
    expect(await rest('paym')).toEqual(['Payments gateway']);
    expect(await rest('Inv')).toEqual(['Invoice kit']);
  });

  it('still find whole words, and their other forms', async () => {
    expect(await rest('payments')).toEqual(['Payments gateway']);
    expect(await rest('billing')).toEqual(['Billing portal']);
  });

  it('read only the last word as a prefix; the words before it must match whole', async () => {
    expect(await rest('invoice pa')).toEqual(['Invoice kit']);
    expect(await rest('card pay')).toEqual(['Payments gateway']);
    expect(await rest('pa invoice')).toEqual([]);
  });

  it('keep web-search syntax: or, -exclude and quoted phrases (a quoted word is exact)', async () => {
    // "Billing" is in the portal's name and description: it ranks above the shop's one name match.
    expect(await rest('billing or shop')).toEqual(['Billing portal', 'Shop front']);
    expect(await rest('billing or sho')).toEqual(['Billing portal', 'Shop front']);
    expect(await rest('pay -card')).toEqual(['Invoice kit']);
    expect(await rest('"pay"')).toEqual(['Invoice kit']);
    expect(await rest('"customers pa')).toEqual([]);
  });

  it('match a stop-word prefix unstemmed: "in" finds Invoice', async () => {
    expect(await rest('in')).toEqual(['Invoice kit']);
  });

  it('order other sorts the same way with a prefix (stars)', async () => {
    expect(await rest('pay', '&sort=stars')).toEqual(['Invoice kit', 'Payments gateway']);
  });
});

/** Text that is tsquery syntax, or no word at all: answered (200) or refused (400), never a 500. */
const hostile = [
  "pay'",
  '"',
  '""""',
  'pay:*',
  'a & b | !c',
  '&|!:*()',
  "'); drop table blueprint; --",
  '(((pay',
  'pay)))',
  '!!!',
  '-',
  '-pay',
  'pay or',
  'or',
  'or pay',
  '<->',
  'pay <-> ment',
  'zürich',
  'ℌ𝔢𝔩𝔩𝔬 𝒫𝒶𝓎',
  '日本語',
  '\u0000pay',
  'pa\u0301',
  '🙂',
  'x'.repeat(201),
];

describe('registry keyword prefixes with hostile input', () => {
  it('answer 200 or a clear 400 over REST, GraphQL and MCP', async () => {
    const client = await McpTestClient.connect(server.url, reader);
    const outcomes: string[] = [];
    try {
      for (const q of hostile) {
        const res = await server.rest.get(`/api/registry?tags=${tag}&q=${encodeURIComponent(q)}`, { token: reader });
        outcomes.push(`${JSON.stringify(q)} rest ${res.status === 200 ? 'ok' : `${res.status} ${res.body?.error?.code}`}`);
        const gql = await server.gql.request(RegistryDocument, { q, tags: [tag], first: 5 }, reader);
        outcomes.push(`${JSON.stringify(q)} graphql ${gql.errors ? `${gql.status} ${gql.errors.map((e) => e.extensions?.code).join()}` : 'ok'}`);
        try {
          const mcp = await client.call('registry_search', { q, tags: tag });
          outcomes.push(`${JSON.stringify(q)} mcp ${mcp.isError ? `error ${mcp.body?.error?.code}` : 'ok'}`);
        } catch (e) {
          // The transport refuses some text before the tool runs (a NUL character): a 400 in the section 5 shape.
          const refused = /"code":"(\w+)"/.exec(String(e));
          outcomes.push(`${JSON.stringify(q)} mcp http ${refused ? refused[1] : String(e)}`);
        }
      }
    } finally {
      await client.close();
    }
    // Every answer is a page or the section 5 validation error; a q over 200 characters is refused everywhere.
    for (const outcome of outcomes) expect(outcome).toMatch(/ (ok|VALIDATION_FAILED)$/);
    expect(outcomes.filter((o) => o.endsWith('VALIDATION_FAILED')).map((o) => o.slice(0, 12))).toContain(JSON.stringify('x'.repeat(201)).slice(0, 12));
    expect(outcomes.filter((o) => o.endsWith(' ok')).length).toBeGreaterThanOrEqual((hostile.length - 2) * 3);
  });
});

describe('registry keyword prefixes over GraphQL and MCP', () => {
  it('GraphQL registry(q:) finds a word from its first letters, ranked the same', async () => {
    const data = await server.gql.ok(RegistryDocument, { q: 'pay', tags: [tag], first: 10 }, reader);
    expect(data.registry.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual(['Payments gateway', 'Invoice kit']);
    expect(data.registry.totalCount).toBe(2);
  });

  it('MCP registry_search finds a word from its first letters, ranked the same', async () => {
    const client = await McpTestClient.connect(server.url, reader);
    try {
      const body = await client.ok('registry_search', { q: 'pay', tags: tag });
      expect(names(body.items)).toEqual(['Payments gateway', 'Invoice kit']);
      expect(body).toMatchObject({ total: 2, total_exact: true });
    } finally {
      await client.close();
    }
  });
});
