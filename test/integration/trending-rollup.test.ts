import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { trendingScore } from '../../src/registry/trending';
import { advanceTrendingHorizon } from '../../src/registry/trending.service';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { startRun, walkRun } from '../fixtures/executions';
import { startTestServer, type TestServer } from '../helpers/server';
import { SqlClient } from '../helpers/sql';

/**
 * The maintained trending counts (migration 20261124000100): kept by triggers in the transaction of each
 * star, unstar, fork, run and deletion, moved by the horizon job, and corrected by readers between the
 * horizon and their window, so GET /api/registry/trending and `sort=trending` answer what the raw rows say.
 */
let server: TestServer;
let sql: SqlClient;
let owner: string;
let reader: string;

const ago = (days: number, minutes = 0) => new Date(Date.now() - days * 86_400_000 - minutes * 60_000).toISOString();

interface Counts {
  stars: number;
  forks: number;
  executions: number;
}

async function maintained(id: string): Promise<Counts & { score: number }> {
  const [r] = await sql.query(
    'select trending_stars as stars, trending_forks as forks, trending_executions as executions, trending_score as score from blueprint where id = $1',
    [id],
  );
  return { stars: r!.stars, forks: r!.forks, executions: r!.executions, score: r!.score };
}

/**
 * The window's counts straight from the rows (section 15): distinct principals other than the owner who
 * starred, forked, or finished a run (its last step reached) inside the window.
 */
async function raw(id: string, days = 7): Promise<Counts> {
  const [r] = await sql.query(
    `with b as (select owner_id from blueprint where id = $1), since as (select now() - make_interval(days => $2) as t)
     select (select count(distinct principal_id) from star, b, since where blueprint_id = $1 and created_at >= since.t and principal_id <> b.owner_id)::int as stars,
            (select count(distinct c.owner_id) from blueprint c, b, since where c.forked_from_id = $1 and c.created_at >= since.t and c.owner_id <> b.owner_id)::int as forks,
            (select count(distinct principal_id) from execution_run, b, since where blueprint_id = $1 and status = 'completed'
               and steps_reached = total_steps and ended_at >= since.t and principal_id <> b.owner_id)::int as executions`,
    [id, days],
  );
  return r as Counts;
}

async function listed(id: string): Promise<(Counts & { score: number }) | undefined> {
  const res = await server.rest.get('/api/registry/trending?limit=100', { token: reader });
  expect(res.status).toBe(200);
  const item = res.body.items.find((i: any) => i.id === id);
  return item ? { ...item.activity, score: item.score } : undefined;
}

async function principal(): Promise<string> {
  const id = randomUUID();
  await sql.query("insert into principal (id, kind, name) values ($1, 'agent', 'fan')", [id]);
  return id;
}

async function starAt(blueprintId: string, at: string): Promise<void> {
  await sql.query('insert into star (principal_id, blueprint_id, created_at) values ($1, $2, $3)', [await principal(), blueprintId, at]);
}

const advance = () => advanceTrendingHorizon(server.app.deps.orm.em.fork() as EntityManager);
const setHorizon = (at: string) => sql.query('update trending_horizon set horizon = $1', [at]);

beforeAll(async () => {
  // No job: each test moves the horizon itself.
  server = await startTestServer({ limits: { trendingAdvanceMs: 0 } });
  sql = await SqlClient.connect(server.databaseUrl);
  owner = await server.rest.agentToken('owner');
  reader = await server.rest.agentToken('reader');
});
afterAll(async () => {
  await sql.close();
  await server.close();
});
beforeEach(() => setHorizon(ago(7)));

describe('maintained trending counts', () => {
  it('weighs the stored score exactly as trendingScore does (the generated column repeats trendingWeights)', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Weights' });
    const counts = { stars: 7, forks: 2, executions: 5 };
    await sql.query('update blueprint set trending_stars = $2, trending_forks = $3, trending_executions = $4 where id = $1', [
      bp.id,
      counts.stars,
      counts.forks,
      counts.executions,
    ]);
    expect((await maintained(bp.id)).score).toBe(trendingScore(counts));
  });

  it('count a star and drop it on unstar, in the same transaction as the star', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Starred Once' });
    const fan = await server.rest.agentToken('fan');
    expect((await server.rest.post(`/api/blueprints/${bp.id}/star`, { token: fan })).status).toBe(200);
    expect(await maintained(bp.id)).toEqual({ stars: 1, forks: 0, executions: 0, score: trendingScore({ stars: 1, forks: 0, executions: 0 }) });
    expect(await listed(bp.id)).toEqual({ stars: 1, forks: 0, executions: 0, score: 1 });
    expect((await server.rest.post(`/api/blueprints/${bp.id}/star`, { token: fan })).status).toBe(200); // again: a no-op
    expect((await maintained(bp.id)).stars).toBe(1);
    expect((await server.rest.delete(`/api/blueprints/${bp.id}/star`, { token: fan })).status).toBe(200);
    expect(await maintained(bp.id)).toMatchObject({ stars: 0, score: 0 });
    expect(await listed(bp.id)).toBeUndefined();
  });

  it('count a fork on its parent, and stop counting it when the fork is deleted', async () => {
    const parent = await createBlueprint(server.rest, owner, { name: 'Forked Parent' });
    const forker = await server.rest.agentToken('forker');
    const child = await fork(server.rest, forker, parent.id);
    expect(await maintained(parent.id)).toMatchObject({ forks: 1, score: trendingScore({ stars: 0, forks: 1, executions: 0 }) });
    expect(await listed(parent.id)).toEqual({ stars: 0, forks: 1, executions: 0, score: 3 });
    expect((await server.rest.delete(`/api/blueprints/${child.id}`, { token: forker })).status).toBe(204);
    expect(await maintained(parent.id)).toMatchObject({ forks: 0, score: 0 });
    expect(await listed(parent.id)).toBeUndefined();
  });

  it('count a run once it reaches its last step, not when it starts', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Executed Once' });
    const run = await startRun(server.rest, reader, bp.id);
    expect((await maintained(bp.id)).executions).toBe(0);
    await walkRun(server.rest, reader, bp.id, run);
    expect(await maintained(bp.id)).toEqual({ stars: 0, forks: 0, executions: 1, score: trendingScore({ stars: 0, forks: 0, executions: 1 }) });
    expect(await listed(bp.id)).toEqual({ stars: 0, forks: 0, executions: 1, score: 5 });
  });

  it('survive deleting a parent with stars, forks and runs: its forks keep counting nothing for it', async () => {
    const parent = await createBlueprint(server.rest, owner, { name: 'Doomed Parent' });
    const fan = await server.rest.agentToken('doomed fan');
    await server.rest.post(`/api/blueprints/${parent.id}/star`, { token: fan });
    await server.rest.get(`/api/blueprints/${parent.id}/start`, { token: fan });
    const child = await fork(server.rest, fan, parent.id);
    await server.rest.post(`/api/blueprints/${child.id}/star`, { token: owner });
    expect((await server.rest.delete(`/api/blueprints/${parent.id}`, { token: owner })).status).toBe(204);
    expect(await sql.query('select 1 from blueprint where id = $1', [parent.id])).toHaveLength(0);
    expect(await maintained(child.id)).toEqual({ stars: 1, forks: 0, executions: 0, score: 1 });
  });

  it('follow rows moved in time, and never count activity from before the horizon', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Backdated' });
    await starAt(bp.id, ago(30));
    expect((await maintained(bp.id)).stars).toBe(0);
    await sql.query('update star set created_at = now() where blueprint_id = $1', [bp.id]);
    expect((await maintained(bp.id)).stars).toBe(1);
    await sql.query('update star set created_at = $2 where blueprint_id = $1', [bp.id, ago(30)]);
    expect((await maintained(bp.id)).stars).toBe(0);
    await sql.query('delete from star where blueprint_id = $1', [bp.id]);
    expect((await maintained(bp.id)).stars).toBe(0);
  });
});

describe('the window edge', () => {
  it('counts activity one minute inside the window and not one minute outside it', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Edge' });
    await setHorizon(ago(30));
    await starAt(bp.id, ago(7, -1));
    await starAt(bp.id, ago(7, 1));
    const f = await fork(server.rest, reader, bp.id);
    await sql.query('update blueprint set created_at = $1 where id = $2', [ago(7, 1), f.id]);
    await sql.query(
      `insert into execution_run (id, blueprint_id, principal_id, status, total_steps, steps_reached, stage_token_hashes, started_at, ended_at)
       values ($1, $2, $3, 'completed', 1, 1, '{}', $4, $4)`,
      [randomUUID(), bp.id, await principal(), ago(7, 1)],
    );
    // The maintained counts go back to the horizon (30 days); the reader counts only its window.
    expect(await maintained(bp.id)).toMatchObject({ stars: 2, forks: 1, executions: 1 });
    expect(await raw(bp.id)).toEqual({ stars: 1, forks: 0, executions: 0 });
    expect(await listed(bp.id)).toEqual({ stars: 1, forks: 0, executions: 0, score: 1 });
    // The job drops what fell behind; the answer stays the same.
    expect(await advance()).toBeGreaterThanOrEqual(1);
    expect(await maintained(bp.id)).toMatchObject({ stars: 1, forks: 0, executions: 0 });
    expect(await listed(bp.id)).toEqual({ stars: 1, forks: 0, executions: 0, score: 1 });
  });

  it('counts activity in the window that the horizon has passed (a horizon ahead of the reader)', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Ahead' });
    await setHorizon(ago(6));
    await starAt(bp.id, ago(6, 30)); // before the horizon: not maintained, but inside the window
    expect((await maintained(bp.id)).stars).toBe(0);
    expect(await listed(bp.id)).toEqual({ stars: 1, forks: 0, executions: 0, score: 1 });
  });

  it('moves the horizon to a week ago and no further, however often the job runs', async () => {
    await setHorizon(ago(9));
    await advance();
    await advance();
    const [h] = await sql.query('select extract(epoch from (now() - horizon)) / 86400 as days from trending_horizon');
    expect(Number(h!.days)).toBeGreaterThan(6.99);
    expect(Number(h!.days)).toBeLessThan(7.01);
  });

  it('ranks sort=trending and the trending list from the same exact counts, quiet blueprints last by stars', async () => {
    const tag = `edge-${randomUUID().slice(0, 8)}`;
    const mk = (name: string) => createBlueprint(server.rest, owner, { name, tags: [tag] });
    const [quiet, stale, fresh] = [await mk('Quiet'), await mk('Stale'), await mk('Fresh')];
    await setHorizon(ago(30));
    for (let i = 0; i < 3; i++) await starAt(stale.id, ago(8)); // maintained, but outside the window
    await starAt(fresh.id, ago(1));
    await sql.query('update blueprint set stars_count = 5 where id = $1', [quiet.id]);
    const page = await server.rest.get(`/api/registry?tags=${tag}&sort=trending`, { token: reader });
    expect(page.body.items.map((i: any) => i.name)).toEqual(['Fresh', 'Quiet', 'Stale']);
    expect(await listed(stale.id)).toBeUndefined();
    await advance();
    const again = await server.rest.get(`/api/registry?tags=${tag}&sort=trending`, { token: reader });
    expect(again.body.items.map((i: any) => i.name)).toEqual(['Fresh', 'Quiet', 'Stale']);
  });

  it('yields to a writer that holds a blueprint row and then needs the horizon, instead of deadlocking', async () => {
    const parent = await createBlueprint(server.rest, owner, { name: 'Busy Parent' });
    const other = await createBlueprint(server.rest, owner, { name: 'Other' });
    await setHorizon(ago(30));
    await starAt(parent.id, ago(8)); // falls behind the next horizon: the job must update the parent
    const writer = await SqlClient.connect(server.databaseUrl);
    try {
      // A fork's order: the parent's row first, then an insert whose trigger reads the horizon.
      await writer.query('begin');
      await writer.query('update blueprint set forks_count = forks_count + 1 where id = $1', [parent.id]);
      const job = advance();
      for (let i = 0; i < 40; i++) {
        const waiting = await sql.query("select 1 from pg_locks where not granted and locktype in ('transactionid', 'tuple')");
        if (waiting.length > 0) break; // the job holds the horizon lock and waits for the parent's row
        await new Promise((r) => setTimeout(r, 5));
      }
      await writer.query('insert into star (principal_id, blueprint_id) values ($1, $2)', [await principal(), other.id]);
      await writer.query('commit');
      expect(await job).toBeNull();
    } finally {
      await writer.close();
    }
    expect(await advance()).toBeGreaterThanOrEqual(1);
    expect(await maintained(parent.id)).toMatchObject({ stars: 0 });
    expect(await maintained(other.id)).toMatchObject({ stars: 1 });
    expect(await listed(other.id)).toMatchObject({ stars: 1 });
  });

  it('answers other windows from the raw rows, as before', async () => {
    const bp = await createBlueprint(server.rest, owner, { name: 'Month' });
    await starAt(bp.id, ago(20));
    const res = await server.rest.get('/api/registry/trending?limit=100&window_days=30', { token: reader });
    expect(res.body.items.find((i: any) => i.id === bp.id)).toMatchObject({ score: 1, activity: { stars: 1 } });
    expect(await listed(bp.id)).toBeUndefined();
  });
});
