import type { Locator, Page } from 'playwright-core';
import { addNode, createArchitecture, createTeam } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { expectAccessible, seriousViolations } from '../helpers/axe';
import { BrowserSession, untilInPage, browserTestLifecycle } from '../helpers/browser';
import type { SignedInUser } from '../helpers/rest';
import { startTestServer, type TestServer } from '../helpers/server';
import { ensureWebBuilt } from '../helpers/web-build';

// Every route of the console (docs/web.md) in both colour schemes, and what the other browser tests leave out:
// the public list of architectures without an account, the registry's state in the URL both ways, the
// rating sort, owners on cards, counts written in the singular, a team's own things and chart, and Back
// stepping out of each zoom level in turn.

jest.setTimeout(300_000);

let server: TestServer;
let browser: BrowserSession;
let owner: SignedInUser;
let fan: SignedInUser;
let ledger: { id: string; slug: string; name: string };
let ledgerFork: { id: string; slug: string; name: string };
let map: { slug: string; nodeId: string };
let team: { id: string };

beforeAll(async () => {
  await ensureWebBuilt();
  server = await startTestServer();
  browser = await BrowserSession.launch(server.url);
  const { rest } = server;
  owner = await rest.signUp('route-owner');
  fan = await rest.signUp('route-fan');
  ledger = await createBlueprint(rest, owner.token, { name: 'Ledger service', description: 'Double-entry books', tags: ['ledger'] });
  ledgerFork = await fork(rest, fan.token, ledger.id); // same name, another owner
  const opened = await rest.post(`/api/blueprints/${ledger.id}/proposals`, {
    token: fan.token,
    body: { source_blueprint_id: ledgerFork.id, title: 'Multi-currency books' },
  });
  expect(opened.status).toBe(201);
  const commented = await rest.post(`/api/blueprints/${ledger.id}/proposals/1/comments`, { token: owner.token, body: { body: 'Looks right.' } });
  expect(commented.status).toBe(201);
  // The only public architecture of this server, with one blueprint on it; a private one that nobody else sees.
  const arch = await createArchitecture(rest, owner.token, { name: 'Route map', visibility: 'public' });
  map = { slug: arch.slug, nodeId: (await addNode(rest, owner.token, arch.slug, { blueprint_id: ledger.id, position_x: 0, position_y: 0 })).id };
  await createArchitecture(rest, owner.token, { name: 'Hidden map', visibility: 'private' });
  team = await createTeam(rest, owner.token, [[fan.id, 'viewer']], 'Route crew');
  // The fan forked the ledger, so its broadcasts reach the fan's inbox.
  const sent = await rest.post(`/api/blueprints/${ledger.id}/broadcasts`, {
    token: owner.token,
    body: { message: 'Ledger rounding changed', type: 'changelog', severity: 'minor' },
  });
  expect(sent.status).toBe(201);
}, 600_000);

browserTestLifecycle(() => ({ browser, server }));

/** Resolves once no "Loading …" status is left on the page. */
const settled = (page: Page) =>
  untilInPage(page, `![...document.querySelectorAll('[role="status"]')].some((e) => (e.textContent ?? '').startsWith('Loading'))`);

const cardTexts = (page: Page) => page.getByTestId('blueprint-card').allTextContents();

describe('the public list of architectures', () => {
  it('opens without an account: public architectures only, no create form, counts in the singular', async () => {
    const page = await browser.open();
    await page.goto('/architectures');
    await page.getByRole('heading', { name: 'Architectures', level: 2 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/architectures');
    const card = page.getByTestId('architecture-card').filter({ hasText: 'Route map' });
    await card.waitFor();
    await card.getByText('by route-owner').waitFor();
    expect(await card.getByText('1 blueprint', { exact: true }).count()).toBe(1);
    await page.getByText('1 public architecture', { exact: true }).waitFor();
    expect(await page.getByText('Hidden map').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create' }).count()).toBe(0);
    expect(await page.title()).toBe('Architectures · Blueprint Workshop');
    await expectAccessible(page);
    await card.getByRole('link', { name: 'Route map' }).click();
    await page.getByRole('heading', { name: 'Route map', level: 2 }).waitFor();
    expect(await page.evaluate("window.localStorage.getItem('bw.token')")).toBeNull();

    // Signed in, the same page has the form to create one.
    const mine = await browser.open({ token: owner.token });
    await mine.goto('/architectures');
    await mine.getByRole('button', { name: 'Create' }).waitFor();
  });
});

describe('the registry keeps its state in the URL', () => {
  it('writes the search and the tag into the URL as they are chosen, and a reload restores both', async () => {
    const page = await browser.open({ token: owner.token });
    await page.goto('/registry');
    await page.getByTestId('blueprint-card').first().waitFor();
    await page.getByLabel('Search blueprints').fill('ledg');
    await page.waitForURL((url) => url.searchParams.get('q') === 'ledg');
    const tag = page.getByRole('group', { name: 'Filter by tag' }).getByText('ledger', { exact: true });
    await tag.click();
    await page.waitForURL((url) => url.searchParams.get('tags') === 'ledger' && url.searchParams.get('q') === 'ledg');
    await page
      .getByTestId('registry-total')
      .filter({ hasText: /^2 blueprints$/ })
      .waitFor();
    // Forks share the name: each card names its owner.
    const named = async (p: Page) => (await cardTexts(p)).map((t) => `${t.match(/^Ledger service/)?.[0]} ${t.match(/by route-(fan|owner)/)?.[0]}`).sort();
    expect(await named(page)).toEqual(['Ledger service by route-fan', 'Ledger service by route-owner']);

    await page.reload();
    await page
      .getByTestId('registry-total')
      .filter({ hasText: /^2 blueprints$/ })
      .waitFor();
    expect(await page.getByLabel('Search blueprints').inputValue()).toBe('ledg');
    expect(await page.getByRole('group', { name: 'Filter by tag' }).getByRole('checkbox', { name: 'ledger' }).isChecked()).toBe(true);
    expect(await named(page)).toEqual(['Ledger service by route-fan', 'Ledger service by route-owner']);
    await expectAccessible(page);
  });

  it('sorts by rating, best rated first, from the URL and from the control', async () => {
    const { rest } = server;
    // Rated low is the newer one, so newest-first or trending order would put it first.
    const high = await createBlueprint(rest, owner.token, { name: 'Rated high' });
    const low = await createBlueprint(rest, owner.token, { name: 'Rated low' });
    expect((await rest.post(`/api/blueprints/${high.id}/reviews`, { token: fan.token, body: { rating: 5, body: 'Great' } })).status).toBe(201);
    expect((await rest.post(`/api/blueprints/${low.id}/reviews`, { token: fan.token, body: { rating: 2, body: 'Thin' } })).status).toBe(201);
    const order = async (p: Page) => (await cardTexts(p)).map((t) => t.match(/^Rated (high|low)/)?.[0]).filter(Boolean);
    const page = await browser.open({ token: owner.token });
    await page.goto('/registry?sort=RECENT');
    await page.getByTestId('blueprint-card').filter({ hasText: 'Rated low' }).waitFor();
    expect(await order(page)).toEqual(['Rated low', 'Rated high']);
    await page
      .locator('label')
      .filter({ hasText: /^Rating$/ })
      .click();
    await page.waitForURL(/sort=RATING/);
    await page.getByTestId('blueprint-card').first().filter({ hasText: 'Rated high' }).waitFor();
    expect(await order(page)).toEqual(['Rated high', 'Rated low']);
    await page.getByTestId('blueprint-card').filter({ hasText: 'Rated high' }).getByLabel('rated 5.0 of 5 by 1').waitFor();
    await page.reload();
    await page.getByTestId('blueprint-card').first().filter({ hasText: 'Rated high' }).waitFor();
    expect(await page.getByRole('radio', { name: 'Rating' }).isChecked()).toBe(true);
  });
});

describe('counts in the singular', () => {
  it('writes "1 blueprint in this family", "1 comment" and "Sent to 1 inbox"', async () => {
    const page = await browser.open({ token: owner.token });
    const lone = await createBlueprint(server.rest, owner.token, { name: 'Lone service' });
    await page.goto(`/blueprints/${lone.slug}`);
    await page.getByRole('tab', { name: 'Lineage' }).click();
    await page.getByText('1 blueprint in this family', { exact: false }).waitFor();

    await page.goto(`/blueprints/${ledger.slug}`);
    await page.getByRole('tab', { name: 'Proposals' }).click();
    await page.getByTestId('proposal-row').filter({ hasText: '1 comment' }).waitFor();
    expect(await page.getByTestId('proposal-row').textContent()).toContain('from Ledger service by route-fan · 1 comment ·');

    // The fan forked the ledger, so a broadcast reaches one inbox.
    await page.getByLabel('Broadcast to forkers and subscribers').fill('Books close at midnight');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('status').filter({ hasText: 'Sent to 1 inbox.' }).waitFor();
    await expectAccessible(page);
    expect(await page.locator('body').innerText()).not.toMatch(/\b1 (blueprints|comments|inboxes|forks|steps|modules)\b/);
  });
});

describe('a team page shows the team’s own things', () => {
  it('lists its blueprints and architectures, and draws its activity as bars with a caption in words', async () => {
    const { rest } = server;
    const toolkit = await createBlueprint(rest, owner.token, { name: 'Crew toolkit' });
    expect((await rest.post(`/api/blueprints/${toolkit.id}/transfer`, { token: owner.token, body: { team_id: team.id } })).status).toBe(200);
    expect((await rest.post(`/api/blueprints/${toolkit.id}/star`, { token: fan.token })).status).toBeLessThan(300);
    const crewMap = await createArchitecture(rest, owner.token, { name: 'Crew map', visibility: 'private' });
    expect((await rest.post(`/api/architectures/${crewMap.slug}/transfer`, { token: owner.token, body: { team_id: team.id } })).status).toBe(200);

    const page = await browser.open({ token: fan.token });
    await page.goto(`/teams/${team.id}`);
    await page.getByRole('heading', { name: 'Route crew', level: 2 }).waitFor();
    const blueprints = page.getByRole('region', { name: /^Blueprints/ });
    await blueprints.getByTestId('blueprint-card').filter({ hasText: 'Crew toolkit' }).filter({ hasText: 'by route-owner' }).waitFor();
    await page.getByRole('heading', { name: 'Blueprints (1 blueprint)' }).waitFor();
    await page
      .getByRole('region', { name: /^Architectures/ })
      .getByRole('link', { name: 'Crew map' })
      .waitFor();
    const chart = page.getByTestId('team-chart');
    await chart.getByText(/1 blueprint created, 0 runs started, 0 runs completed, 0 forks, 1 star received\.$/).waitFor();
    // Today's bar is drawn: one rectangle each for the blueprint created and the star received.
    await chart.locator('.recharts-bar-rectangle path').first().waitFor();
    expect(await chart.locator('.recharts-bar-rectangle path').count()).toBe(2);
    await expectAccessible(page);
  });
});

describe('the architecture zoom levels and Back', () => {
  it('steps Back out one zoom level at a time and stays in the architecture', async () => {
    const page = await browser.open({ token: owner.token });
    await page.goto(`/architectures/${map.slug}`);
    await page.locator(`[data-testid="arch-node"][data-node-id="${map.nodeId}"]`).dblclick({ position: { x: 10, y: 10 } });
    await page.getByTestId('module-graph').waitFor();
    await page.locator('[data-testid="module-node"][data-key="api"]').click();
    await page.getByTestId('swimlanes').waitFor();
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ zoom: 'module', node: map.nodeId, module: 'api' });

    await page.goBack();
    await page.getByTestId('module-graph').waitFor();
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ zoom: 'architecture', node: map.nodeId });
    await page.goBack();
    await page.getByTestId('ecosystem-canvas').waitFor();
    expect(new URL(page.url()).pathname).toBe(`/architectures/${map.slug}`);
    expect(new URL(page.url()).search).toBe('');
    await page.getByRole('heading', { name: 'Route map', level: 2 }).waitFor();
  });
});

describe('loading states', () => {
  it('says the blueprint is loading while its answer is slow, instead of a blank page', async () => {
    const page = await browser.open({ token: owner.token });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/graphql', async (route) => {
      if ((route.request().postData() ?? '').includes('query BlueprintPage')) await held;
      await route.continue();
    });
    await page.goto(`/blueprints/${ledger.slug}`);
    await page.getByRole('status').filter({ hasText: 'Loading blueprint…' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Ledger service', level: 2 }).count()).toBe(0);
    release();
    await page.getByRole('heading', { name: 'Ledger service', level: 2 }).waitFor();
    expect(await page.getByRole('status').filter({ hasText: 'Loading blueprint…' }).count()).toBe(0);
    await page.unroute('**/graphql');
  });
});

describe('the colour scheme follows the system, on every page', () => {
  const scheme = (page: Page) => page.evaluate<string | null>("document.documentElement.getAttribute('data-mantine-color-scheme')");

  it('switches when the system switches, without a reload', async () => {
    const page = await browser.open({ token: owner.token, colorScheme: 'light' });
    await page.goto('/registry');
    await page.getByTestId('blueprint-card').first().waitFor();
    expect(await scheme(page)).toBe('light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await untilInPage(page, `document.documentElement.getAttribute('data-mantine-color-scheme') === 'dark'`);
    await page.emulateMedia({ colorScheme: 'light' });
    await untilInPage(page, `document.documentElement.getAttribute('data-mantine-color-scheme') === 'light'`);
  });

  /** Each page and tab of the console, opened and checked by axe-core in the given scheme. */
  async function sweep(colorScheme: 'light' | 'dark'): Promise<string[]> {
    const visited: string[] = [];
    const check = async (page: Page, label: string, ready: Locator) => {
      await ready.first().waitFor();
      await settled(page);
      expect({ label, scheme: await scheme(page) }).toEqual({ label, scheme: colorScheme });
      expect({ label, violations: await seriousViolations(page) }).toEqual({ label, violations: [] });
      visited.push(label);
    };

    const anonymous = await browser.open({ colorScheme });
    for (const [path, ready] of [
      ['/', (p: Page) => p.getByTestId('landing-architecture')],
      ['/signin', (p: Page) => p.getByRole('button', { name: 'Sign in', exact: true })],
      ['/architectures', (p: Page) => p.getByTestId('architecture-card')],
      [`/architectures/${map.slug}`, (p: Page) => p.getByTestId('arch-node')],
    ] as const) {
      await anonymous.goto(path);
      await check(anonymous, `anonymous ${path}`, ready(anonymous));
    }

    const page = await browser.open({ token: owner.token, colorScheme });
    const pages: [string, (p: Page) => Locator][] = [
      ['/', (p) => p.getByTestId('landing-architecture')],
      ['/registry', (p) => p.getByTestId('blueprint-card')],
      [`/blueprints/${ledgerFork.slug}`, (p) => p.getByRole('heading', { name: 'Ledger service', level: 2 })],
      [`/blueprints/${ledger.slug}/proposals/1`, (p) => p.getByRole('heading', { name: /Multi-currency books/ })],
      ['/architectures', (p) => p.getByTestId('architecture-card')],
      [`/architectures/${map.slug}`, (p) => p.getByTestId('arch-node')],
      [`/architectures/${map.slug}?zoom=architecture&node=${map.nodeId}`, (p) => p.getByTestId('module-node')],
      [`/architectures/${map.slug}?zoom=module&node=${map.nodeId}&module=api`, (p) => p.getByTestId('swimlane')],
      ['/account', (p) => p.getByRole('heading', { name: 'Account and MCP setup' })],
      ['/import', (p) => p.getByRole('heading', { name: 'Import a blueprint' })],
      ['/users/route-owner', (p) => p.getByTestId('blueprint-card')],
      ['/teams', (p) => p.getByTestId('team-card')],
      [`/teams/${team.id}`, (p) => p.getByTestId('team-chart')],
      ['/nothing-lives-here', (p) => p.getByTestId('not-found')],
    ];
    for (const [path, ready] of pages) {
      await page.goto(path);
      await check(page, path, ready(page));
    }
    // The not-found page answered 404 on purpose; anything else fails the test.
    const unexpected = browser.errors.filter((e) => !/HTTP 404 GET .*\/nothing-lives-here|status of 404/.test(e));
    browser.errors.length = 0;
    expect(unexpected).toEqual([]);
    // The fork's comparison with its parent.
    await page.goto(`/blueprints/${ledgerFork.slug}`);
    await page.getByRole('tab', { name: 'Compare with parent' }).click();
    await check(page, 'tab Compare with parent', page.getByTestId('compare-status'));

    // Every tab of the owner's blueprint page.
    await page.goto(`/blueprints/${ledger.slug}`);
    await page.getByRole('heading', { name: 'Ledger service', level: 2 }).waitFor();
    const tabs: [RegExp, (p: Page) => Locator][] = [
      [/^Plan$/, (p) => p.getByRole('heading', { name: 'Database', level: 4 })],
      [/^Lineage$/, (p) => p.getByTestId('lineage-node')],
      [/^Forks/, (p) => p.getByRole('tabpanel').getByRole('link', { name: 'Ledger service' })],
      [/^Changelog/, (p) => p.getByLabel('Entry title')],
      [/^Reviews/, (p) => p.getByRole('tabpanel')],
      [/^Runs$/, (p) => p.getByRole('tabpanel')],
      [/^Export$/, (p) => p.getByRole('button', { name: 'Download AGENTS.md' })],
      [/^Versions$/, (p) => p.getByRole('tabpanel')],
      [/^Proposals$/, (p) => p.getByTestId('proposal-row')],
      [/^Edit plan$/, (p) => p.getByRole('tabpanel').getByRole('button')],
      [/^Edit details$/, (p) => p.getByRole('button', { name: 'Save details' })],
    ];
    for (const [name, ready] of tabs) {
      await page.getByRole('tab', { name }).click();
      await check(page, `tab ${name.source}`, ready(page));
    }
    // What an action leaves on the page: the delete confirmation, and a published entry's status line.
    await page.getByRole('button', { name: 'Delete blueprint…' }).click();
    await check(page, 'delete dialog', page.getByRole('dialog', { name: 'Delete “Ledger service”?' }));
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.getByRole('tab', { name: /^Changelog/ }).click();
    await page.getByLabel('Entry title').fill(`Checked in the ${colorScheme}`);
    await page.getByLabel('What changed').fill('Nothing, this is a check.');
    await page.getByRole('button', { name: 'Publish entry' }).click();
    await check(page, 'published status', page.getByRole('status').filter({ hasText: `Published “Checked in the ${colorScheme}”.` }));

    // The inbox with an item (the fan forked the ledger and hears its broadcasts).
    const reader = await browser.open({ token: fan.token, colorScheme });
    await reader.goto('/inbox');
    await check(reader, '/inbox', reader.getByTestId('inbox-item'));

    return visited;
  }

  it('passes axe-core on every page and tab in the dark', async () => {
    expect((await sweep('dark')).length).toBe(33);
  });

  it('passes axe-core on every page and tab in the light', async () => {
    expect((await sweep('light')).length).toBe(33);
  });
});
