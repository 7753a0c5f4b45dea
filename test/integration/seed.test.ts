import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { createTestDatabase } from '../helpers/database';
import { projectRoot } from '../helpers/build';

const run = promisify(execFile);

/** Row counts of everything the seed writes. */
async function counts(url: string): Promise<Record<string, number>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const tables = [
      'principal',
      'blueprint',
      'lineage_link',
      'blueprint_version',
      'star',
      'review',
      'execution_run',
      'changelog_entry',
      'broadcast',
      'inbox_delivery',
      'architecture',
      'architecture_node',
      'architecture_edge',
      'tool_operation',
    ];
    const out: Record<string, number> = {};
    for (const t of tables) out[t] = (await client.query(`select count(*)::int as n from ${t}`)).rows[0].n;
    out.tags = (
      await client.query(`select count(distinct t)::int as n from blueprint, unnest(tags) t where t in ('saas', 'e-commerce', 'api', 'cli', 'dashboard')`)
    ).rows[0].n;
    out.breeds = (await client.query(`select count(distinct child_id)::int as n from lineage_link where kind = 'breed'`)).rows[0].n;
    out.edge_types = (await client.query('select count(distinct edge_type)::int as n from architecture_edge')).rows[0].n;
    // Depth of the deepest lineage chain: an original (generation 0) to its great-grandchildren (3).
    out.generations = (
      await client.query(`with recursive chain(id, depth) as (
          select id, 0 from blueprint b where not exists (select 1 from lineage_link l where l.child_id = b.id)
          union all select l.child_id, c.depth + 1 from chain c join lineage_link l on l.parent_id = c.id)
        select max(depth)::int as n from chain`)
    ).rows[0].n;
    return out;
  } finally {
    await client.end();
  }
}

const seed = (url: string) => run('npm', ['run', '--silent', 'seed'], { cwd: projectRoot, env: { ...process.env, DATABASE_URL: url }, timeout: 280_000 });

it('`npm run seed` builds a realistic registry through the services, and a second run changes nothing', async () => {
  const db = await createTestDatabase();
  try {
    const first = await seed(db.url);
    expect(first.stdout).toMatch(/Seeded in/);
    const once = await counts(db.url);
    expect(once.blueprint).toBeGreaterThanOrEqual(55);
    expect(once.blueprint).toBeLessThanOrEqual(70);
    expect(once.tags).toBe(5);
    expect(once.breeds).toBeGreaterThanOrEqual(5);
    expect(once.generations).toBeGreaterThanOrEqual(3);
    expect(once.architecture).toBe(3);
    expect(once.edge_types).toBe(5); // every drawn type; lineage edges are computed from the forks and breeds
    expect(once.changelog_entry).toBeGreaterThan(0);
    expect(once.broadcast).toBe(1);
    expect(once.inbox_delivery).toBeGreaterThan(0);
    expect(once.star).toBeGreaterThan(50);
    expect(once.review).toBeGreaterThanOrEqual(20);
    expect(once.execution_run).toBeGreaterThan(10);
    // Built through the tools: every original came from a `create` operation.
    expect(once.tool_operation).toBeGreaterThanOrEqual(35);

    const second = await seed(db.url);
    expect(second.stdout).toMatch(/already there/);
    expect(await counts(db.url)).toEqual(once);
  } finally {
    await db.drop();
  }
}, 300_000);
