import type { Page } from 'playwright-core';
import { createTeam, principalIdOf } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { expectAccessible } from '../helpers/axe';
import { BrowserSession, DESKTOP, browserTestLifecycle } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';
import { ensureWebBuilt } from '../helpers/web-build';

jest.setTimeout(180_000);

let server: TestServer;
let browser: BrowserSession;
let alice: string;
let bob: string;
let target: any;
let source: any;

/** Edits a plan over REST from its current version (wire form). */
async function edit(id: string, token: string, change: (plan: any) => void): Promise<void> {
  const { body } = await server.rest.get(`/api/blueprints/${id}`, { token });
  const plan = structuredClone({ modules: body.modules, steps: body.steps, configuration: body.configuration, design_system: body.design_system });
  change(plan);
  const res = await server.rest.put(`/api/blueprints/${id}/plan`, { token, body: { ...plan, base_version: body.version } });
  if (res.status !== 200) throw new Error(`edit: ${res.status} ${JSON.stringify(res.body)}`);
}

/** Bob proposes his fork `sourceId` to `targetId` over REST; answers the proposal (wire form). */
async function propose(targetId: string, sourceId: string, title: string): Promise<any> {
  const opened = await server.rest.post(`/api/blueprints/${targetId}/proposals`, { token: bob, body: { source_blueprint_id: sourceId, title } });
  expect(opened.status).toBe(201);
  return opened.body;
}

beforeAll(async () => {
  await ensureWebBuilt();
  server = await startTestServer();
  browser = await BrowserSession.launch(server.url);
  alice = await server.rest.agentToken('alice');
  bob = await server.rest.agentToken('bob');
  target = await createBlueprint(server.rest, alice, { name: 'Checkout flow' });
  source = await fork(server.rest, bob, target.id);
  await edit(target.id, alice, (p) => (p.steps.find((s: any) => s.key === 'endpoints').title = 'Alice endpoints'));
  await edit(source.id, bob, (p) => {
    p.steps.find((s: any) => s.key === 'endpoints').title = 'Bob endpoints';
    p.modules.push({ key: 'fraud', name: 'Fraud checks', kind: 'service', summary: 'Scores orders', depends_on: ['api'] });
  });
});

// The 409 of the plan editor's stale save is expected; nothing else may fail.
browserTestLifecycle(() => ({ browser, server }), /CONFLICT/);

describe('proposals in the console', () => {
  let page: Page;

  it('proposes a fork to its parent, and the owner resolves the conflict, comments and merges side by side', async () => {
    page = await browser.open({ viewport: DESKTOP, token: bob });
    await page.goto(`/blueprints/${source.slug}`);
    await page.getByRole('button', { name: 'Propose to Checkout flow' }).click();
    await page.getByLabel('Proposal title').fill('Fraud checks and better endpoints');
    await page.getByRole('button', { name: 'Open proposal' }).click();
    await page.waitForURL(new RegExp(`/blueprints/${target.slug}/proposals/1$`));
    await page.getByRole('heading', { name: 'Proposal #1: Fraud checks and better endpoints' }).waitFor();
    await expectAccessible(page);

    const owner = await browser.open({ viewport: DESKTOP, token: alice });
    await owner.goto(`/blueprints/${target.slug}`);
    await owner.getByRole('tab', { name: 'Proposals' }).click();
    await owner.getByRole('link', { name: '#1 Fraud checks and better endpoints' }).click();
    await owner.getByRole('region', { name: 'module fraud: added' }).waitFor();
    expect(await owner.getByRole('region', { name: 'module fraud: added' }).textContent()).toContain('Scores orders');
    const conflict = owner.getByRole('region', { name: 'Conflict on step endpoints' });
    expect(await conflict.textContent()).toMatch(/Alice endpoints[\s\S]*Bob endpoints/);
    expect(await owner.getByRole('button', { name: 'Merge' }).isDisabled()).toBe(true);
    await expectAccessible(owner);
    await owner.getByLabel('Add a comment').fill('Looks good, taking your title.');
    await owner.getByRole('button', { name: 'Comment' }).click();
    await owner.getByTestId('comment').filter({ hasText: 'Looks good' }).waitFor();
    await conflict.getByLabel('Take the proposal’s (theirs)').check();
    await owner.getByRole('button', { name: 'Merge' }).click();
    await owner.getByText(/merged · from/).waitFor();
    await expectAccessible(owner);
    expect(await owner.getByText(/merged as version 3/).count()).toBe(1);
    const after = (await server.rest.get(`/api/blueprints/${target.id}`, { token: alice })).body;
    expect(after.steps.find((s: any) => s.key === 'endpoints').title).toBe('Bob endpoints');
    expect(after.modules.map((m: any) => m.key)).toContain('fraud');
  });

  it('edits the plan, shows "changed since you opened it" when someone saved first, and saves after a reload', async () => {
    const owner = await browser.open({ viewport: DESKTOP, token: alice });
    await owner.goto(`/blueprints/${target.slug}`);
    await owner.getByRole('tab', { name: 'Edit plan' }).click();
    await owner.getByText(/Editing version 3/).waitFor();
    await expectAccessible(owner);
    // Someone else saves first.
    await edit(target.id, alice, (p) => (p.configuration.region = 'eu'));
    await owner.getByRole('button', { name: 'Add step' }).click();
    const last = owner.getByRole('group', { name: /^Step \d+$/ }).last();
    await last.getByLabel('Step key').fill('deploy');
    await last.getByLabel('Module').fill('api');
    await last.getByLabel('Title').fill('Deploy it');
    await owner.getByRole('button', { name: 'Save plan' }).click();
    await owner.getByText('The plan changed since you opened it').waitFor();
    await expectAccessible(owner);
    await owner.getByRole('button', { name: 'Reload the plan' }).click();
    await owner.getByText(/Editing version 4/).waitFor();
    // Change: a step's title and a module's summary.
    const schemaStep = owner.getByRole('group', { name: 'Step 1' });
    expect(await schemaStep.getByLabel('Step key').inputValue()).toBe('schema');
    await schemaStep.getByLabel('Title').fill('Design the schema twice');
    const dbModule = owner.getByRole('group', { name: 'Module 2' });
    expect(await dbModule.getByLabel('Key', { exact: true }).inputValue()).toBe('db');
    await dbModule.getByLabel('Summary').fill('Tables and indexes');
    // Reorder, remove and add modules and steps.
    await owner.getByRole('button', { name: 'Move module api down' }).click();
    await owner.getByRole('button', { name: 'Remove step pages' }).click();
    await owner.getByRole('button', { name: 'Remove module web' }).click();
    await owner.getByRole('button', { name: 'Add module' }).click();
    const module = owner.getByRole('group', { name: /^Module \d+$/ }).last();
    await module.getByLabel('Key', { exact: true }).fill('queue');
    await module.getByLabel('Name').fill('Queue');
    await owner.getByRole('button', { name: 'Add step' }).click();
    const added = owner.getByRole('group', { name: /^Step \d+$/ }).last();
    await added.getByLabel('Step key').fill('deploy');
    await added.getByLabel('Module').fill('api');
    await added.getByLabel('Title').fill('Deploy it');
    await owner.getByRole('button', { name: 'Move step endpoints up' }).click();
    await owner.getByRole('button', { name: 'Save plan' }).click();
    await owner.getByText('Saved as version 5.').waitFor();
    const saved = (await server.rest.get(`/api/blueprints/${target.id}`, { token: alice })).body;
    expect(saved.version).toBe(5);
    expect(saved.configuration.region).toBe('eu');
    expect(saved.steps.map((s: any) => s.key)).toEqual(['endpoints', 'schema', 'deploy']);
    expect(saved.steps.find((s: any) => s.key === 'schema').title).toBe('Design the schema twice');
    expect(saved.modules.map((m: any) => m.key)).toEqual(['db', 'api', 'fraud', 'queue']);
    expect(saved.modules.find((m: any) => m.key === 'db').summary).toBe('Tables and indexes');
    expect(saved.modules.find((m: any) => m.key === 'queue')).toMatchObject({ name: 'Queue', kind: 'service', depends_on: [] });
  });

  it('lets the author close and reopen a proposal on its page', async () => {
    const second = await fork(server.rest, bob, target.id);
    await edit(second.id, bob, (p) => (p.configuration.cache = 'redis'));
    const opened = await propose(target.id, second.id, 'Add a cache');
    const author = await browser.open({ viewport: DESKTOP, token: bob });
    await author.goto(`/blueprints/${target.slug}/proposals/${opened.number}`);
    await author.getByRole('heading', { name: `Proposal #${opened.number}: Add a cache` }).waitFor();
    // The author may close and reopen, but not merge.
    expect(await author.getByRole('button', { name: 'Merge' }).count()).toBe(0);
    await author.getByRole('button', { name: 'Close proposal' }).click();
    await author.getByRole('button', { name: 'Reopen proposal' }).waitFor();
    await author.getByText(/^closed · from/).waitFor();
    await expectAccessible(author);
    const proposal = `/api/blueprints/${target.id}/proposals/${opened.number}`;
    expect((await server.rest.get(proposal, { token: alice })).body.state).toBe('closed');
    await author.getByRole('button', { name: 'Reopen proposal' }).click();
    await author.getByRole('button', { name: 'Close proposal' }).waitFor();
    await author.getByText(/^open · from/).waitFor();
    expect((await server.rest.get(proposal, { token: alice })).body.state).toBe('open');
  });

  it('lets a team editor of a team target merge a proposal and edit the plan', async () => {
    const carol = await server.rest.agentToken('carol');
    const team = await createTeam(server.rest, alice, [[await principalIdOf(server.gql, carol), 'member']], 'Checkout team');
    const teamTarget = await createBlueprint(server.rest, alice, { name: 'Team checkout' });
    expect((await server.rest.post(`/api/blueprints/${teamTarget.id}/transfer`, { token: alice, body: { team_id: team.id } })).status).toBe(200);
    const teamFork = await fork(server.rest, bob, teamTarget.id);
    await edit(teamFork.id, bob, (p) => (p.configuration.retries = 3));
    const opened = await propose(teamTarget.id, teamFork.id, 'Retry payments');
    const editor = await browser.open({ viewport: DESKTOP, token: carol });
    await editor.goto(`/blueprints/${teamTarget.slug}/proposals/${opened.number}`);
    await editor.getByRole('heading', { name: `Proposal #${opened.number}: Retry payments` }).waitFor();
    await editor.getByRole('button', { name: 'Merge' }).click();
    await editor.getByText(/merged as version 2/).waitFor();
    const merged = (await server.rest.get(`/api/blueprints/${teamTarget.id}/proposals/${opened.number}`, { token: alice })).body;
    expect(merged).toMatchObject({ state: 'merged', merge_version: 2, merged_by: { name: 'carol' } });
    await editor.goto(`/blueprints/${teamTarget.slug}`);
    await editor.getByRole('tab', { name: 'Edit plan' }).click();
    await editor.getByText(/Editing version 2/).waitFor();
    await expectAccessible(editor);
  });

  it('resolves a conflict with a value of its own, refusing text that is not JSON before sending it', async () => {
    const own = await createBlueprint(server.rest, alice, { name: 'Own resolution' });
    const theirs = await fork(server.rest, bob, own.id);
    await edit(own.id, alice, (p) => (p.steps.find((s: any) => s.key === 'endpoints').title = 'Alice endpoints'));
    await edit(theirs.id, bob, (p) => (p.steps.find((s: any) => s.key === 'endpoints').title = 'Bob endpoints'));
    const opened = await propose(own.id, theirs.id, 'Better endpoints');
    const owner = await browser.open({ viewport: DESKTOP, token: alice });
    await owner.goto(`/blueprints/${own.slug}/proposals/${opened.number}`);
    const conflict = owner.getByRole('region', { name: 'Conflict on step endpoints' });
    await conflict.getByLabel('Write my own').check();
    const value = conflict.getByLabel('Your value for step endpoints');
    // It starts from the target's version.
    expect(JSON.parse(await value.inputValue())).toMatchObject({ key: 'endpoints', title: 'Alice endpoints' });
    await expectAccessible(owner);
    await value.fill('{ "key": "endpoints", ');
    await owner.getByRole('button', { name: 'Merge' }).click();
    await owner.getByText(/Your value for step endpoints is not valid JSON/).waitFor();
    const proposal = `/api/blueprints/${own.id}/proposals/${opened.number}`;
    expect((await server.rest.get(proposal, { token: alice })).body.state).toBe('open');
    const start = (await server.rest.get(`/api/blueprints/${own.id}`, { token: alice })).body.steps.find((s: any) => s.key === 'endpoints');
    await value.fill(
      JSON.stringify({
        key: 'endpoints',
        moduleKey: start.module_key,
        title: 'Both endpoints',
        instructions: start.instructions,
        acceptance: start.acceptance,
      }),
    );
    await owner.getByRole('button', { name: 'Merge' }).click();
    await owner.getByText(/^merged · from/).waitFor();
    expect((await server.rest.get(proposal, { token: alice })).body.state).toBe('merged');
    const merged = (await server.rest.get(`/api/blueprints/${own.id}`, { token: alice })).body;
    expect(merged.steps.find((s: any) => s.key === 'endpoints').title).toBe('Both endpoints');
  });
});
