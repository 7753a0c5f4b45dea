import { TeamAnalyticsDocument } from '../generated/graphql';
import { createTeam, principalIdOf } from '../fixtures/architectures';
import { fork } from '../fixtures/blueprints';
import { createTeamBlueprint } from '../fixtures/teams';
import { startTestServer, type TestServer } from '../helpers/server';
import { SqlClient } from '../helpers/sql';

let server: TestServer;
let db: SqlClient;
const tokens: Record<string, string> = {};
const ids: Record<string, string> = {};
const people = ['owner', 'viewer', 'fan1', 'fan2', 'outsider'] as const;

beforeAll(async () => {
  server = await startTestServer();
  db = await SqlClient.connect(server.databaseUrl);
  for (const p of people) {
    tokens[p] = await server.rest.agentToken(p);
    ids[p] = await principalIdOf(server.gql, tokens[p]!);
  }
});
afterAll(async () => {
  await db.close();
  await server.close();
});

/** SQL for noon (UTC) of the day `daysAgo` days before today (UTC). */
const noon = (daysAgo: number) => `(((now() at time zone 'UTC')::date - ${daysAgo})::timestamp + interval '12 hours') at time zone 'UTC'`;
/** `YYYY-MM-DD` of that day, as the database sees today. */
async function dayString(daysAgo: number): Promise<string> {
  const [row] = await db.query(`select to_char((now() at time zone 'UTC')::date - ${daysAgo}, 'YYYY-MM-DD') as d`);
  return row!.d;
}

async function run(blueprintId: string, status: string, startedDaysAgo: number, endedDaysAgo: number | null): Promise<void> {
  await db.query(
    `insert into execution_run (id, blueprint_id, principal_id, status, total_steps, stage_token_hashes, started_at, ended_at)
     values (gen_random_uuid(), $1, $2, $3, 3, '{}', ${noon(startedDaysAgo)}, ${endedDaysAgo === null ? 'null' : noon(endedDaysAgo)})`,
    [blueprintId, ids.fan1, status],
  );
}

async function star(blueprintId: string, who: string, daysAgo: number): Promise<void> {
  await db.query(`insert into star (principal_id, blueprint_id, created_at) values ($1, $2, ${noon(daysAgo)})`, [ids[who], blueprintId]);
}

async function forkAt(blueprintId: string, who: string, daysAgo: number): Promise<void> {
  const child = await fork(server.rest, tokens[who]!, blueprintId);
  await db.query(`update lineage_link set created_at = ${noon(daysAgo)} where child_id = $1`, [child.id]);
}

const zero = {
  blueprints_created: 0,
  forks: 0,
  stars_received: 0,
  executions_started: 0,
  executions_completed: 0,
  executions_failed: 0,
  executions_abandoned: 0,
  success_rate: null,
};

describe('GET /api/teams/:id/analytics on known data', () => {
  let teamId: string;
  const bp: Record<string, any> = {};

  beforeAll(async () => {
    teamId = (await createTeam(server.rest, tokens.owner!, [[ids.viewer!, 'viewer']], 'Analysed')).id;
    for (const name of ['Alpha', 'Beta', 'Gamma']) bp[name] = await createTeamBlueprint(server.rest, tokens.owner!, teamId, { name, visibility: 'public' });
    const created: Record<string, number> = { Alpha: 2, Beta: 0, Gamma: 45 };
    for (const [name, daysAgo] of Object.entries(created)) await db.query(`update blueprint set created_at = ${noon(daysAgo)} where id = $1`, [bp[name].id]);
    await forkAt(bp.Alpha.id, 'fan1', 2);
    await forkAt(bp.Alpha.id, 'fan2', 0);
    await forkAt(bp.Alpha.id, 'fan2', 40); // outside the window
    await forkAt(bp.Gamma.id, 'fan1', 1);
    await star(bp.Alpha.id, 'fan1', 1);
    await star(bp.Alpha.id, 'fan2', 1);
    await star(bp.Beta.id, 'fan1', 0);
    await star(bp.Gamma.id, 'fan1', 50); // outside the window
    await run(bp.Alpha.id, 'completed', 2, 2);
    await run(bp.Alpha.id, 'failed', 1, 1);
    await run(bp.Alpha.id, 'abandoned', 1, 0);
    await run(bp.Beta.id, 'running', 0, null);
    await run(bp.Beta.id, 'completed', 31, 31); // outside the window
    await run(bp.Gamma.id, 'completed', 0, 0);
    // Activity on a blueprint outside the team counts nowhere.
    const stranger = await fork(server.rest, tokens.fan1!, bp.Alpha.id);
    await db.query(`update lineage_link set created_at = ${noon(40)} where child_id = $1`, [stranger.id]);
    await star(stranger.id, 'fan2', 0);
    await run(stranger.id, 'completed', 0, 0);
  });

  it('answers exact totals, per-day counts and the most active blueprints', async () => {
    const res = await server.rest.get(`/api/teams/${teamId}/analytics?window_days=7`, { token: tokens.viewer });
    expect(res.status).toBe(200);
    const days = await Promise.all([6, 5, 4, 3, 2, 1, 0].map(dayString));
    expect(res.body).toMatchObject({ team_id: teamId, window_days: 7, from: days[0], to: days[6] });
    expect(res.body.days).toEqual([
      { day: days[0], ...zero },
      { day: days[1], ...zero },
      { day: days[2], ...zero },
      { day: days[3], ...zero },
      { day: days[4], ...zero, blueprints_created: 1, forks: 1, executions_started: 1, executions_completed: 1, success_rate: 1 },
      { day: days[5], ...zero, forks: 1, stars_received: 2, executions_started: 2, executions_failed: 1, success_rate: 0 },
      {
        day: days[6],
        ...zero,
        blueprints_created: 1,
        forks: 1,
        stars_received: 1,
        executions_started: 2,
        executions_completed: 1,
        executions_abandoned: 1,
        success_rate: 0.5,
      },
    ]);
    expect(res.body.totals).toEqual({
      blueprints_created: 2,
      forks: 3,
      stars_received: 3,
      executions_started: 5,
      executions_completed: 2,
      executions_failed: 1,
      executions_abandoned: 1,
      success_rate: 0.5,
    });
    expect(res.body.top_blueprints).toEqual([
      { id: bp.Alpha.id, slug: bp.Alpha.slug, name: 'Alpha', forks: 2, stars: 2, executions_started: 3, activity: 7 },
      { id: bp.Beta.id, slug: bp.Beta.slug, name: 'Beta', forks: 0, stars: 1, executions_started: 1, activity: 2 },
      { id: bp.Gamma.id, slug: bp.Gamma.slug, name: 'Gamma', forks: 1, stars: 0, executions_started: 1, activity: 2 },
    ]);
  });

  it('counts the default 30-day window, which reaches the 45-day-old blueprint only through its recent activity', async () => {
    const res = await server.rest.get(`/api/teams/${teamId}/analytics`, { token: tokens.owner });
    expect(res.body.window_days).toBe(30);
    expect(res.body.days).toHaveLength(30);
    expect(res.body.totals).toMatchObject({ blueprints_created: 2, forks: 3, stars_received: 3, executions_started: 5 });
    const wide = await server.rest.get(`/api/teams/${teamId}/analytics?window_days=60`, { token: tokens.owner });
    expect(wide.body.totals).toMatchObject({ blueprints_created: 3, forks: 5, stars_received: 4, executions_started: 6, executions_completed: 3 });
  });

  it('has the same numbers over GraphQL', async () => {
    const rest = (await server.rest.get(`/api/teams/${teamId}/analytics?window_days=7`, { token: tokens.viewer })).body;
    const gql = (await server.gql.ok(TeamAnalyticsDocument, { id: teamId, windowDays: 7 }, tokens.viewer)).team!.analytics;
    const counts = (c: any) => ({
      blueprints_created: c.blueprintsCreated,
      forks: c.forks,
      stars_received: c.starsReceived,
      executions_started: c.executionsStarted,
      executions_completed: c.executionsCompleted,
      executions_failed: c.executionsFailed,
      executions_abandoned: c.executionsAbandoned,
      success_rate: c.successRate,
    });
    expect({
      team_id: teamId,
      window_days: gql.windowDays,
      from: gql.from,
      to: gql.to,
      totals: counts(gql.totals),
      days: gql.days.map((d) => ({ day: d.day, ...counts(d) })),
      top_blueprints: gql.topBlueprints.map((b) => ({
        id: b.id,
        slug: b.slug,
        name: b.name,
        forks: b.forks,
        stars: b.stars,
        executions_started: b.executionsStarted,
        activity: b.activity,
      })),
    }).toEqual(rest);
  });

  it('is 404 to outsiders, 400 for a window out of range, 401 anonymous', async () => {
    expect((await server.rest.get(`/api/teams/${teamId}/analytics`, { token: tokens.outsider })).status).toBe(404);
    for (const bad of ['0', '366', 'x', '1.5']) {
      const res = await server.rest.get(`/api/teams/${teamId}/analytics?window_days=${bad}`, { token: tokens.owner });
      expect({ bad, status: res.status, code: res.body.error?.code }).toEqual({ bad, status: 400, code: 'VALIDATION_FAILED' });
    }
    expect((await server.rest.get(`/api/teams/${teamId}/analytics`)).status).toBe(401);
    const gql = await server.gql.request(TeamAnalyticsDocument, { id: teamId, windowDays: 0 }, tokens.owner);
    expect(gql.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
  });
});

describe('a fixed number of SQL statements', () => {
  /** A team of `size` blueprints, each with a star and a run today (rows written in bulk). */
  async function teamOfSize(size: number): Promise<string> {
    const teamId = (await createTeam(server.rest, tokens.owner!, [], `Size ${size}`)).id;
    await db.query(
      `insert into blueprint (id, slug, name, visibility, owner_id, team_id, plan)
       select gen_random_uuid(), 'bulk-' || $1::text || '-' || i, 'Bulk ' || i, 'private', $2, $1::uuid,
              '{"modules": [], "steps": [], "configuration": {}, "designSystem": {}}'::jsonb
         from generate_series(1, $3::int) as i`,
      [teamId, ids.owner, size],
    );
    await db.query(`insert into star (principal_id, blueprint_id, created_at) select $1, id, now() from blueprint where team_id = $2`, [ids.fan1, teamId]);
    await db.query(
      `insert into execution_run (id, blueprint_id, principal_id, status, total_steps, stage_token_hashes, started_at, ended_at)
       select gen_random_uuid(), id, $1, 'completed', 1, '{}', now(), now() from blueprint where team_id = $2`,
      [ids.fan1, teamId],
    );
    return teamId;
  }

  it('issues as many statements for a team of 300 blueprints as for a team of 3, over REST and GraphQL', async () => {
    const small = await teamOfSize(3);
    const large = await teamOfSize(300);
    const statements = async (teamId: string) => {
      const rest = await server.rest.get(`/api/teams/${teamId}/analytics`, { token: tokens.owner });
      expect(rest.status).toBe(200);
      const gql = await server.gql.request(TeamAnalyticsDocument, { id: teamId, windowDays: 30 }, tokens.owner);
      expect(gql.errors).toBeUndefined();
      return { rest: Number(rest.headers.get('x-sql-statements')), gql: gql.sqlStatements, totals: rest.body.totals, top: rest.body.top_blueprints.length };
    };
    const a = await statements(small);
    const b = await statements(large);
    expect(a.totals).toMatchObject({ blueprints_created: 3, stars_received: 3, executions_completed: 3, success_rate: 1 });
    expect(b.totals).toMatchObject({ blueprints_created: 300, stars_received: 300, executions_completed: 300, success_rate: 1 });
    expect([a.top, b.top]).toEqual([3, 10]);
    expect(a.rest).toBeGreaterThan(0);
    expect(b.rest).toBe(a.rest);
    expect(b.gql).toBe(a.gql);
  });
});
