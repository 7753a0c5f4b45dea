import type { Page } from 'playwright-core';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { BrowserSession, DESKTOP, screenshotBothSizes, storedToken } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';
import { ensureWebBuilt } from '../helpers/web-build';

jest.setTimeout(120_000);

let server: TestServer;
let browser: BrowserSession;
let page: Page;
let alice: string;
const bp: Record<string, { id: string; slug: string; name: string }> = {};

beforeAll(async () => {
  await ensureWebBuilt();
  server = await startTestServer();
  browser = await BrowserSession.launch(server.url);
  const { rest } = server;
  alice = await rest.agentToken('alice');
  const fans = [await rest.agentToken('fan-1'), await rest.agentToken('fan-2')];
  const make = async (key: string, spec: Parameters<typeof createBlueprint>[2]) => {
    bp[key] = await createBlueprint(rest, alice, spec);
  };
  await make('payments', { name: 'Payments service', description: 'Card payments and refunds', tags: ['payments', 'backend'] });
  await make('storefront', { name: 'Storefront', description: 'A React shop front', tags: ['frontend', 'react'] });
  await make('gateway', { name: 'Auth gateway', description: 'Sign-in and tokens', tags: ['auth', 'backend'] });
  for (const fan of fans) expect((await rest.post(`/api/blueprints/${bp.storefront!.id}/star`, { token: fan })).status).toBeLessThan(300);
  expect((await rest.post(`/api/blueprints/${bp.gateway!.id}/star`, { token: fans[0] })).status).toBeLessThan(300);
  // A family: payments -> payments-eu (fork) -> payments-eu-lite (fork of the fork).
  bp.eu = await fork(rest, fans[0]!, bp.payments!.id);
  bp.lite = await fork(rest, fans[1]!, bp.eu!.id);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

afterEach(() => {
  expect(browser.errors).toEqual([]);
});

const cardNames = (p: Page) => p.getByTestId('blueprint-card').locator('a').allTextContents();

describe('the web console', () => {
  it('signs in and lands on the registry', async () => {
    page = await browser.open({ viewport: DESKTOP });
    await page.goto('/');
    await page.waitForURL(/\/signin/);
    await page.getByRole('button', { name: 'Start an agent session' }).waitFor();
    await screenshotBothSizes(page, 'signin');
    await page.getByRole('button', { name: 'Start an agent session' }).click();
    await page.getByRole('heading', { name: 'Registry' }).waitFor();
    expect(await storedToken(page)).toMatch(/^bw/);
  });

  it('searches, filters by tag and sorts the registry', async () => {
    await page.getByTestId('registry-total').filter({ hasText: '5 blueprints' }).waitFor();
    await screenshotBothSizes(page, 'registry');

    await page.getByLabel('Search blueprints').fill('payments');
    await page.getByTestId('registry-total').filter({ hasText: '3 blueprints' }).waitFor();
    expect((await cardNames(page)).every((n) => n.startsWith('Payments service'))).toBe(true);
    await page.getByLabel('Search blueprints').fill('');
    await page.getByTestId('registry-total').filter({ hasText: '5 blueprints' }).waitFor();

    await page.getByRole('group', { name: 'Filter by tag' }).getByText('frontend', { exact: true }).click();
    await page.getByTestId('registry-total').filter({ hasText: '1 blueprints' }).waitFor();
    expect(await cardNames(page)).toEqual(['Storefront']);
    await page.getByRole('group', { name: 'Filter by tag' }).getByText('frontend', { exact: true }).click();
    await page.getByTestId('registry-total').filter({ hasText: '5 blueprints' }).waitFor();

    await page.getByText('Stars', { exact: true }).click();
    await page.waitForURL(/sort=STARS/);
    await page.getByTestId('blueprint-card').first().filter({ hasText: 'Storefront' }).waitFor();
    expect((await cardNames(page)).slice(0, 2)).toEqual(['Storefront', 'Auth gateway']);

    await page.getByText('Recent', { exact: true }).click();
    await page.waitForURL(/sort=RECENT/);
    // The newest is the fork of the fork.
    await page.getByTestId('blueprint-card').first().filter({ hasText: bp.lite!.name }).waitFor();
  });

  it('opens a blueprint and shows its lineage up and down; a click opens a relative', async () => {
    await page.goto(`/blueprints/${bp.eu!.slug}`);
    await page.getByRole('heading', { name: bp.eu!.name, level: 2 }).waitFor();
    await page.getByRole('tab', { name: 'Lineage' }).click();
    const nodes = page.getByTestId('lineage-node');
    await nodes.nth(2).waitFor();
    expect(await nodes.count()).toBe(3);
    const slugs = await nodes.evaluateAll((els) => els.map((e) => e.getAttribute('data-slug')));
    expect(slugs.sort()).toEqual([bp.payments!.slug, bp.eu!.slug, bp.lite!.slug].sort());
    // The parent sits above the blueprint, the child below.
    const y = async (slug: string) => (await page.locator(`[data-testid="lineage-node"][data-slug="${slug}"]`).boundingBox())!.y;
    expect(await y(bp.payments!.slug)).toBeLessThan(await y(bp.eu!.slug));
    expect(await y(bp.eu!.slug)).toBeLessThan(await y(bp.lite!.slug));
    await screenshotBothSizes(page, 'blueprint-lineage');

    await page.locator(`[data-testid="lineage-node"][data-slug="${bp.payments!.slug}"]`).click();
    await page.waitForURL(new RegExp(`/blueprints/${bp.payments!.slug}$`));
    await page.getByRole('heading', { name: 'Payments service', level: 2 }).waitFor();
    await page.getByRole('heading', { name: 'Database', level: 4 }).waitFor();
    await screenshotBothSizes(page, 'blueprint');
  });

  it('shows live activity, and forks the blueprint from the page', async () => {
    // Someone else stars it while the page is open.
    const carol = await server.rest.agentToken('carol');
    await page.getByTestId('activity-feed').waitFor();
    await expect(server.rest.post(`/api/blueprints/${bp.payments!.id}/star`, { token: carol })).resolves.toMatchObject({ status: 200 });
    await page.getByTestId('activity-feed').getByText('carol starred it').waitFor();

    await page.getByRole('button', { name: 'Fork', exact: true }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/blueprints/') && !url.pathname.endsWith(`/${bp.payments!.slug}`));
    await page.getByText('forked from').waitFor();
    const slug = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    const token = (await storedToken(page))!;
    const made = await server.rest.get(`/api/blueprints/${slug}`, { token });
    expect(made.status).toBe(200);
    expect(made.body.forked_from.id).toBe(bp.payments!.id);
    await page.getByRole('tab', { name: 'Compare with parent' }).click();
    await page.getByTestId('compare-status').filter({ hasText: 'identical' }).waitFor();
  });

  it('receives a broadcast in the inbox live, with a badge count', async () => {
    // The person forked Payments service above, so its owner's broadcasts reach them.
    await page.getByRole('link', { name: 'Inbox' }).click();
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    await page.getByText('Nothing here.').waitFor();
    const sent = await server.rest.post(`/api/blueprints/${bp.payments!.id}/broadcasts`, {
      token: alice,
      body: { message: 'Refunds API changed: see the changelog', type: 'changelog', severity: 'breaking' },
    });
    expect(sent.status).toBe(201);
    await page.getByTestId('inbox-item').filter({ hasText: 'Refunds API changed' }).waitFor();
    await page.getByTestId('inbox-badge').filter({ hasText: '1' }).waitFor();
    await screenshotBothSizes(page, 'inbox');
    await page.getByRole('button', { name: /Mark .* read/ }).click();
    await page.getByTestId('inbox-badge').waitFor({ state: 'detached' });
  });
});
