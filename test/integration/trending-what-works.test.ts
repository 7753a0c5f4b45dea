import { createTeam, principalIdOf } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { sql, startRun, walkRun } from '../fixtures/executions';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * Trending by what works (docs/decisions.md): inside the window, 1 per distinct principal who starred,
 * 3 per distinct principal who forked, 5 per distinct principal with a successful run; the owner and a
 * team blueprint's members never count; ties go to more successful runs, then stars, then newest.
 */
let server: TestServer;
let reader: string;
beforeAll(async () => {
  server = await startTestServer();
  reader = await server.rest.agentToken('reader');
});
afterAll(() => server.close());

async function trendingList(): Promise<any[]> {
  const res = await server.rest.get('/api/registry/trending?limit=100', { token: reader });
  expect(res.status).toBe(200);
  return res.body.items;
}

async function entry(id: string): Promise<{ score: number; activity: any } | undefined> {
  const item = (await trendingList()).find((i) => i.id === id);
  return item ? { score: item.score, activity: item.activity } : undefined;
}

async function rank(ids: string[]): Promise<string[]> {
  const order = (await trendingList()).map((i) => i.id as string);
  return ids.filter((id) => order.includes(id)).sort((a, b) => order.indexOf(a) - order.indexOf(b));
}

const agents = (n: number, label: string) => Promise.all(Array.from({ length: n }, (_, i) => server.rest.agentToken(`${label} ${i}`)));

describe('trending by what works', () => {
  it("ten different agents' forks beat one owner's hundred actions (and one busy agent's hundred)", async () => {
    const owner = await server.rest.agentToken('busy owner');
    const popular = await createBlueprint(server.rest, owner, { name: 'Forked by ten' });
    const selfPromoted = await createBlueprint(server.rest, owner, { name: 'Self promoted' });
    const busy = await createBlueprint(server.rest, await server.rest.agentToken('other owner'), { name: 'One busy fan' });
    for (const token of await agents(10, 'forker')) await fork(server.rest, token, popular.id);
    // A hundred actions on one blueprint: 1 star, 49 forks, 1 run walked to its end over REST and 49 more
    // finished runs written straight to the table (the same triggers count them).
    const hundredActions = async (token: string, id: string) => {
      await server.rest.post(`/api/blueprints/${id}/star`, { token });
      for (let i = 0; i < 49; i++) await fork(server.rest, token, id);
      await walkRun(server.rest, token, id, await startRun(server.rest, token, id));
      await sql(
        server,
        `insert into execution_run (id, blueprint_id, principal_id, status, total_steps, steps_reached, stage_token_hashes, started_at, ended_at)
         select gen_random_uuid(), $1, principal_id, 'completed', 3, 3, '{}', now(), now()
           from (select principal_id from execution_run where blueprint_id = $1 limit 1) p, generate_series(1, 49)`,
        [id],
      );
    };
    await hundredActions(owner, selfPromoted.id);
    // One other agent doing the same to someone else's blueprint counts once per kind.
    await hundredActions(await server.rest.agentToken('busy fan'), busy.id);
    expect((await sql(server, 'select count(*)::int as n from execution_run where blueprint_id = $1 and status = $2', [busy.id, 'completed']))[0].n).toBe(50);

    expect(await entry(popular.id)).toEqual({ score: 30, activity: { stars: 0, forks: 10, executions: 0 } });
    expect(await entry(selfPromoted.id)).toBeUndefined();
    expect(await entry(busy.id)).toEqual({ score: 1 + 3 + 5, activity: { stars: 1, forks: 1, executions: 1 } });
    expect(await rank([busy.id, popular.id])).toEqual([popular.id, busy.id]);
  }, 120_000);

  it('counts repeated stars from one principal once', async () => {
    const bp = await createBlueprint(server.rest, await server.rest.agentToken('owner'), { name: 'Starred again and again' });
    const fan = await server.rest.agentToken('fickle fan');
    for (let i = 0; i < 3; i++) {
      expect((await server.rest.post(`/api/blueprints/${bp.id}/star`, { token: fan })).status).toBe(200);
      expect((await server.rest.delete(`/api/blueprints/${bp.id}/star`, { token: fan })).status).toBe(200);
    }
    expect(await entry(bp.id)).toBeUndefined();
    await server.rest.post(`/api/blueprints/${bp.id}/star`, { token: fan });
    await server.rest.post(`/api/blueprints/${bp.id}/star`, { token: fan });
    expect(await entry(bp.id)).toEqual({ score: 1, activity: { stars: 1, forks: 0, executions: 0 } });
  });

  it('ranks two finished runs above three stars', async () => {
    const owner = await server.rest.agentToken('owner');
    const [ran, starred] = [
      await createBlueprint(server.rest, owner, { name: 'Ran twice' }),
      await createBlueprint(server.rest, owner, { name: 'Starred thrice' }),
    ];
    for (const token of await agents(2, 'runner')) await walkRun(server.rest, token, ran.id, await startRun(server.rest, token, ran.id));
    for (const token of await agents(3, 'starrer')) await server.rest.post(`/api/blueprints/${starred.id}/star`, { token });
    expect(await entry(ran.id)).toEqual({ score: 10, activity: { stars: 0, forks: 0, executions: 2 } });
    expect(await entry(starred.id)).toEqual({ score: 3, activity: { stars: 3, forks: 0, executions: 0 } });
    expect(await rank([starred.id, ran.id])).toEqual([ran.id, starred.id]);
  });

  it('counts nothing for an unfinished run, even one reported completed (409) or failed', async () => {
    const bp = await createBlueprint(server.rest, await server.rest.agentToken('owner'), { name: 'Never finished' });
    const [claimer, quitter] = await agents(2, 'unfinished');
    const claimed = await startRun(server.rest, claimer!, bp.id);
    await walkRun(server.rest, claimer!, bp.id, claimed, 2);
    const claim = await server.rest.post(`/api/executions/${claimed.run_id}/report`, { token: claimer, body: { status: 'completed' } });
    expect(claim.status).toBe(409);
    const quit = await startRun(server.rest, quitter!, bp.id);
    await server.rest.post(`/api/executions/${quit.run_id}/report`, { token: quitter, body: { status: 'failed' } });
    expect(await entry(bp.id)).toBeUndefined();
  });

  it("never counts a team blueprint's members, and breaks a tie by successful runs before stars", async () => {
    const owner = await server.rest.agentToken('team owner');
    const member = await server.rest.agentToken('team member');
    const team = await createTeam(server.rest, owner, [[await principalIdOf(server.gql, member), 'member']]);
    const teamed = await createBlueprint(server.rest, owner, { name: 'Team made' });
    expect((await server.rest.post(`/api/blueprints/${teamed.id}/transfer`, { token: owner, body: { team_id: team.id } })).status).toBe(200);
    await server.rest.post(`/api/blueprints/${teamed.id}/star`, { token: member });
    await fork(server.rest, member, teamed.id);
    await walkRun(server.rest, member, teamed.id, await startRun(server.rest, member, teamed.id));
    expect(await entry(teamed.id)).toBeUndefined();
    // A tie at 5: one successful run against five stars; the run comes first even though the stars are newer.
    const [runs, stars] = [
      await createBlueprint(server.rest, owner, { name: 'Tie by run' }),
      await createBlueprint(server.rest, owner, { name: 'Tie by stars' }),
    ];
    const [runner] = await agents(1, 'tie runner');
    await walkRun(server.rest, runner!, runs.id, await startRun(server.rest, runner!, runs.id));
    for (const token of await agents(5, 'tie starrer')) await server.rest.post(`/api/blueprints/${stars.id}/star`, { token });
    expect([(await entry(runs.id))!.score, (await entry(stars.id))!.score]).toEqual([5, 5]);
    expect(await rank([stars.id, runs.id])).toEqual([runs.id, stars.id]);
  });

  it('breaks a tie of score and runs by stars, then by the newest', async () => {
    const owner = await server.rest.agentToken('tie owner');
    const mk = (name: string) => createBlueprint(server.rest, owner, { name });
    // All at 3 with no runs: three stars; one fork made before and one after it (the newer ranks first).
    const [olderForked, starred, newerForked] = [await mk('Tie older forked'), await mk('Tie starred'), await mk('Tie newer forked')];
    for (const token of await agents(3, 'tie star')) await server.rest.post(`/api/blueprints/${starred.id}/star`, { token });
    for (const id of [olderForked.id, newerForked.id]) await fork(server.rest, (await agents(1, `tie forker ${id}`))[0]!, id);
    expect([await entry(olderForked.id), await entry(starred.id), await entry(newerForked.id)].map((e) => e!.score)).toEqual([3, 3, 3]);
    expect(await rank([olderForked.id, newerForked.id, starred.id])).toEqual([starred.id, newerForked.id, olderForked.id]);
  });
});
