import type { Page, Route } from 'playwright-core';
import { createArchitecture } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { expectAccessible } from '../helpers/axe';
import { BrowserSession, screenshotBothSizes, storedToken, browserTestLifecycle } from '../helpers/browser';
import type { SignedInUser } from '../helpers/rest';
import { startTestServer, type TestServer } from '../helpers/server';
import { ensureWebBuilt } from '../helpers/web-build';

jest.setTimeout(120_000);

let server: TestServer;
let browser: BrowserSession;
let ada: SignedInUser;

beforeAll(async () => {
  await ensureWebBuilt();
  server = await startTestServer();
  browser = await BrowserSession.launch(server.url);
  ada = await server.rest.signUp('ada-workspace');
}, 600_000);

browserTestLifecycle(() => ({ browser, server }));

/** Drops from the recorded errors those the test provoked on purpose (faked answers), failing on any other. */
function acceptErrors(pattern: RegExp): void {
  const unexpected = browser.errors.filter((e) => !pattern.test(e));
  browser.errors.length = 0;
  expect(unexpected).toEqual([]);
}

const json = (status: number, code: string) => (route: Route) =>
  route.fulfill({ status, contentType: 'application/json', body: JSON.stringify({ errors: [{ message: 'Unavailable', extensions: { code } }] }) });

describe('the console through failures (only a 401 signs out)', () => {
  let page: Page;

  it('keeps the token through a 503 on /graphql in every tab, shows a retry, and goes on after it', async () => {
    page = await browser.open({ token: ada.token });
    const context = page.context();
    await context.route('**/graphql', json(503, 'UNAVAILABLE'));
    await page.goto('/account');
    const other = await context.newPage();
    await other.goto('/inbox');
    for (const tab of [page, other]) {
      await tab.getByRole('button', { name: 'Retry' }).waitFor();
      await tab.getByText(/You are still signed in/).waitFor();
      expect(new URL(tab.url()).pathname).not.toBe('/signin');
      expect(await storedToken(tab)).toBe(ada.token);
    }
    await expectAccessible(page);
    await screenshotBothSizes(page, 'service-down');

    await context.unroute('**/graphql');
    for (const tab of [page, other]) await tab.getByRole('button', { name: 'Retry' }).click();
    await page.getByRole('heading', { name: 'Account and MCP setup' }).waitFor();
    await other.getByRole('heading', { name: 'Inbox' }).waitFor();
    await page.getByTestId('viewer-name').filter({ hasText: ada.username }).waitFor();
    await other.close();
    acceptErrors(/\b503\b/);
  });

  it('keeps the token through a 500 and a network failure on a page, and Retry loads it', async () => {
    await page.route('**/graphql', (route) => route.fulfill({ status: 500, contentType: 'text/plain', body: 'Internal Server Error' }));
    await page.getByRole('link', { name: 'Inbox' }).click();
    await page.getByRole('alert').filter({ hasText: 'not answering' }).waitFor();
    expect(await storedToken(page)).toBe(ada.token);
    await expectAccessible(page);
    await page.unroute('**/graphql');
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    await page.getByText('No broadcasts yet').waitFor();

    await page.route('**/graphql', (route) => route.abort('failed'));
    await page.reload();
    await page.getByRole('button', { name: 'Retry' }).waitFor();
    expect(await storedToken(page)).toBe(ada.token);
    await page.unroute('**/graphql');
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    acceptErrors(/\b500\b|ERR_FAILED/);
  });

  it('signs out on a 401: the token was revoked elsewhere, and every tab follows', async () => {
    const other = await page.context().newPage();
    await other.goto('/account');
    await other.getByRole('heading', { name: 'Account and MCP setup' }).waitFor();
    expect((await server.rest.delete('/api/auth/session', { token: ada.token })).status).toBeLessThan(300);
    await page.reload();
    await page.waitForURL(/\/signin/);
    expect(await storedToken(page)).toBeNull();
    // The other tab hears of it through the storage event.
    await other.waitForURL(/\/signin/);
    // Closed before the 401s are accepted: a request of a signed-out tab still in flight (a refetch with the
    // token it held) could otherwise fail after this test and be counted against the next one.
    await page.context().close();
    acceptErrors(/\b401\b/);
  });
});

describe('a person finds their own work, and pages say what they are', () => {
  let page: Page;
  let grace: SignedInUser;

  beforeAll(async () => {
    const { rest } = server;
    grace = await rest.signUp('grace-workspace');
    await createBlueprint(rest, grace.token, { name: 'Ledger public', visibility: 'public' });
    await createBlueprint(rest, grace.token, { name: 'Ledger private', visibility: 'private' });
    await createArchitecture(rest, grace.token, { name: 'Private map', visibility: 'private' });
  });

  it('lists one’s private blueprints and architectures on one’s own page, and only there', async () => {
    page = await browser.open({ token: grace.token });
    await page.goto('/account');
    await page.getByRole('link', { name: 'Your work' }).click();
    await page.waitForURL(/\/users\/grace-workspace$/);
    await page.getByRole('heading', { name: 'Your work', level: 2 }).waitFor();
    await page.getByTestId('blueprint-card').filter({ hasText: 'Ledger private' }).filter({ hasText: 'private' }).waitFor();
    await page.getByTestId('blueprint-card').filter({ hasText: 'Ledger public' }).waitFor();
    await page.getByTestId('architecture-card').filter({ hasText: 'Private map' }).waitFor();
    expect(await page.title()).toBe('Your work · Blueprint Workshop');
    await expectAccessible(page);
    await screenshotBothSizes(page, 'user-self');

    const other = await browser.open({ token: (await server.rest.signUp('someone-else-ws')).token });
    await other.goto('/users/grace-workspace');
    await other.getByRole('heading', { name: 'grace-workspace', level: 2 }).waitFor();
    await other.getByTestId('blueprint-card').filter({ hasText: 'Ledger public' }).waitFor();
    expect(await other.getByTestId('blueprint-card').count()).toBe(1);
    expect(await other.getByTestId('architecture-card').count()).toBe(0);
    await other.getByText('No public architectures.').waitFor();
    await expectAccessible(other);
  });

  it('shows a not-found page (status 404) for an unknown path and an unknown person, each with its own title', async () => {
    await page.goto('/no-such-page');
    await page.getByTestId('not-found').waitFor();
    expect(await page.title()).toBe('Not found · Blueprint Workshop');
    await expectAccessible(page);
    acceptErrors(/HTTP 404 GET .*\/no-such-page|status of 404/);
    await page.goto('/users/nobody-here');
    await page.getByTestId('not-found').filter({ hasText: 'no such person' }).waitFor();
    await page.goto('/teams/x');
    expect(await page.locator('#root').count()).toBe(1);
  });

  it('shows validation errors as sentences, not input paths', async () => {
    const fresh = await browser.open();
    await fresh.goto('/signin');
    await fresh.getByRole('tab', { name: 'Sign up' }).click();
    await fresh.getByLabel('Username').fill('short-password');
    await fresh.getByLabel(/^Password/).fill('tooshort');
    await fresh.getByRole('button', { name: 'Create account' }).click();
    const alert = fresh.getByRole('alert');
    await alert.filter({ hasText: 'Password must have at least 12 characters.' }).waitFor();
    expect(await alert.textContent()).not.toMatch(/body\/|must NOT/);
    await expectAccessible(fresh);
    acceptErrors(/\b400\b/);
  });
});

describe('a blueprint page among forks and tabs', () => {
  let original: { id: string; slug: string; name: string };
  let copy: { id: string; slug: string; name: string };
  let hopper: SignedInUser;
  let page: Page;

  beforeAll(async () => {
    const { rest } = server;
    const owner = await rest.signUp('lin-owner');
    hopper = await rest.signUp('hopper-forker');
    original = await createBlueprint(rest, owner.token, { name: 'Twin service' });
    copy = await fork(rest, hopper.token, original.id); // same name, another owner
  });

  it('names the owner on lineage nodes, so a fork and its parent of the same name differ', async () => {
    page = await browser.open({ token: hopper.token });
    await page.goto(`/blueprints/${copy.slug}`);
    await page.getByRole('tab', { name: 'Lineage' }).click();
    const nodes = page.getByTestId('lineage-node');
    await nodes.nth(1).waitFor();
    expect((await nodes.allTextContents()).map((t) => t.match(/by [\w-]+/)?.[0]).sort()).toEqual(['by hopper-forker', 'by lin-owner']);
    await expectAccessible(page);
  });

  it('starts a fresh activity feed after navigating to another blueprint', async () => {
    await page.goto(`/blueprints/${original.slug}`);
    await page.getByTestId('activity-feed').waitFor();
    const fan = await server.rest.agentToken('feed-fan');
    await expect(server.rest.post(`/api/blueprints/${original.id}/star`, { token: fan })).resolves.toMatchObject({ status: 200 });
    await page.getByTestId('activity-feed').getByText('feed-fan starred it').waitFor();
    // The live star refreshes the page's count.
    await page.getByTestId('star-count').filter({ hasText: '★ 1' }).waitFor();
    await page.getByRole('tab', { name: /Forks/ }).click();
    await page.getByRole('link', { name: copy.name }).click();
    await page.waitForURL(new RegExp(`/blueprints/${copy.slug}$`));
    await page.getByTestId('activity-feed').getByText('Nothing yet').waitFor();
    expect(await page.getByTestId('activity-feed').textContent()).not.toContain('feed-fan');
  });

  it('keeps the star count and the Star button current in another tab', async () => {
    const other = await page.context().newPage();
    await other.goto(`/blueprints/${copy.slug}`);
    await other.getByRole('button', { name: 'Star', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Star', exact: true }).click();
    await page.getByRole('button', { name: 'Unstar' }).waitFor();
    await other.getByRole('button', { name: 'Unstar' }).waitFor();
    await other.getByTestId('star-count').filter({ hasText: '★ 1' }).waitFor();
    await other.close();
  });
});

describe('teams', () => {
  it('lists one’s teams; a team page shows members, a chart of its activity, conventions to edit and the audit log', async () => {
    const { rest } = server;
    const lead = await rest.signUp('team-lead-ws');
    const made = await rest.post('/api/teams', { token: lead.token, body: { name: 'Platform crew' } });
    expect(made.status).toBe(201);
    await createBlueprint(rest, lead.token, { name: 'Crew tooling' });

    const page = await browser.open({ token: lead.token });
    await page.goto('/teams');
    await page.getByRole('heading', { name: 'Teams', level: 2 }).waitFor();
    await expectAccessible(page);
    await page.getByTestId('team-card').getByRole('link', { name: 'Platform crew' }).click();
    await page.getByRole('heading', { name: 'Platform crew', level: 2 }).waitFor();
    expect(await page.title()).toBe('Platform crew · Blueprint Workshop');
    await page.getByTestId('team-member').filter({ hasText: 'team-lead-ws' }).filter({ hasText: 'owner' }).waitFor();
    // The chart is drawn (recharts renders an SVG, with a legend entry per measure).
    await page.getByTestId('team-chart').locator('svg.recharts-surface').first().waitFor();
    expect(await page.getByTestId('team-chart').locator('.recharts-legend-item').count()).toBe(5);

    await page.getByRole('textbox', { name: 'Conventions' }).fill('Use TypeScript strict mode.');
    await page.getByRole('button', { name: 'Save conventions' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.reload();
    await page.getByTestId('audit-entry').filter({ hasText: 'team.updated' }).waitFor();
    await page.getByTestId('audit-entry').filter({ hasText: 'team.created' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Conventions' }).inputValue()).toBe('Use TypeScript strict mode.');
    await expectAccessible(page);
    await screenshotBothSizes(page, 'team');
  });
});

describe('the landing page, for everyone', () => {
  it('says what the service is and lists public architectures, which open without an account', async () => {
    const maker = await server.rest.signUp('landing-maker');
    await createArchitecture(server.rest, maker.token, { name: 'Open city map', visibility: 'public' });
    const page = await browser.open();
    await page.goto('/');
    await page.getByRole('heading', { name: 'Blueprint Workshop', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Sign up' }).waitFor();
    await expectAccessible(page);
    await page.getByTestId('landing-architecture').getByRole('link', { name: 'Open city map' }).click();
    await page.getByRole('heading', { name: 'Open city map' }).waitFor();
    expect(new URL(page.url()).pathname).not.toBe('/signin');
    expect(await storedToken(page)).toBeNull();
  });
});

// The registry's `q` matches the last word as a prefix (docs/api.md), as a person types.
describe('registry search by word prefix', () => {
  it('finds "Payments" from "pay", with the search in the URL', async () => {
    const owner = await server.rest.signUp('prefix-owner');
    await createBlueprint(server.rest, owner.token, { name: 'Payments gateway', description: 'Cards' });
    const page = await browser.open({ token: owner.token });
    await page.goto('/registry?q=pay');
    expect(await page.getByLabel('Search blueprints').inputValue()).toBe('pay');
    await page.getByTestId('blueprint-card').filter({ hasText: 'Payments gateway' }).waitFor();
    await expectAccessible(page);
  });
});

describe('an agent session in the browser', () => {
  it('shows its bwa_ token; a person claims its work with it; signing out ends a session', async () => {
    const page = await browser.open();
    await page.goto('/signin');
    await page.getByLabel('Session name (optional)').fill('browser-agent');
    await page.getByRole('button', { name: 'Start an agent session' }).click();
    await page.getByTestId('viewer-name').filter({ hasText: 'browser-agent' }).waitFor();
    await page.getByRole('link', { name: 'Account' }).click();
    const agentToken = (await page.getByTestId('agent-token').textContent())!.trim();
    expect(agentToken).toMatch(/^bwa_/);
    expect(await storedToken(page)).toBe(agentToken);
    await expectAccessible(page);
    await createBlueprint(server.rest, agentToken, { name: 'Made by the browser agent' });

    const person = await server.rest.signUp('claims-person');
    const mine = await browser.open({ token: person.token });
    await mine.goto('/account');
    await mine.getByLabel('Agent session token').fill(agentToken);
    await mine.getByRole('button', { name: 'Claim' }).click();
    await mine.getByTestId('claim-result').filter({ hasText: '1 blueprint' }).waitFor();
    await expectAccessible(mine);

    // Another agent session: signing out ends it on the server, not only in this browser.
    const other = await browser.open();
    await other.goto('/signin');
    await other.getByLabel('Session name (optional)').fill('short-lived-agent');
    await other.getByRole('button', { name: 'Start an agent session' }).click();
    await other.getByTestId('viewer-name').filter({ hasText: 'short-lived-agent' }).waitFor();
    const shortLived = (await storedToken(other))!;
    expect((await server.rest.get('/api/inbox', { token: shortLived })).status).toBe(200);
    await other.getByRole('button', { name: 'Sign out' }).click();
    await other.waitForURL(/\/signin/);
    expect((await server.rest.get('/api/inbox', { token: shortLived })).status).toBe(401);
  });
});
