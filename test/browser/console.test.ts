import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { expectAccessible } from '../helpers/axe';
import { BrowserSession, DESKTOP, screenshotBothSizes, storedToken, browserTestLifecycle } from '../helpers/browser';
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

browserTestLifecycle(() => ({ browser, server }));

const cardNames = (p: Page) => p.getByTestId('blueprint-card').locator('a').allTextContents();

describe('the web console', () => {
  it('signs up, and signs out and in again', async () => {
    page = await browser.open({ viewport: DESKTOP });
    // The landing page is for everyone: what the service is, and the way in.
    await page.goto('/');
    await page.getByRole('heading', { name: 'Blueprint Workshop', level: 1 }).waitFor();
    await expectAccessible(page);
    await screenshotBothSizes(page, 'landing');
    await page.goto('/registry');
    await page.waitForURL(/\/signin/);
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    await screenshotBothSizes(page, 'signin');
    await page.getByRole('tab', { name: 'Sign up' }).click();
    await page.getByLabel('Username').fill('ada-lovelace');
    await page.getByLabel(/^Password/).fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Registry' }).waitFor();
    await page.getByTestId('viewer-name').filter({ hasText: 'ada-lovelace' }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/signin/);
    expect(await storedToken(page)).toBeNull();
    await page.getByLabel('Username').fill('ada-lovelace');
    await page.getByLabel(/^Password/).fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Registry' }).waitFor();
    expect(await storedToken(page)).toMatch(/^bws_/);
  });

  it('creates an MCP token shown once with a client configuration, which curl can use; lists its last use; revokes it', async () => {
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('heading', { name: 'Account and MCP setup' }).waitFor();
    await page.getByLabel('Token name').fill('laptop editor');
    await page.getByText('Read and write', { exact: true }).click();
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = (await page.getByTestId('new-token').textContent())!.trim();
    expect(secret).toMatch(/^bwu_/);
    const config = JSON.parse((await page.getByTestId('mcp-config').textContent())!);
    expect(config.mcpServers['blueprint-workshop']).toEqual({ type: 'http', url: `${server.url}/mcp`, headers: { Authorization: `Bearer ${secret}` } });
    await page.getByRole('button', { name: 'Copy token' }).waitFor();
    await page.getByTestId('token-row').filter({ hasText: 'laptop editor' }).filter({ hasText: 'never' }).waitFor();
    await screenshotBothSizes(page, 'account');

    // The token works from outside the browser: curl, as the page suggests.
    // Asynchronously: the server runs in this process, so a synchronous child would block the answer it waits for.
    const curl = async (token: string, path: string) =>
      (await promisify(execFile)('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', `Authorization: Bearer ${token}`, `${server.url}${path}`]))
        .stdout;
    expect(await curl(secret, `/api/blueprints/${bp.payments!.slug}`)).toBe('200');
    // MCP with the configuration's URL and header.
    const mcp = await fetch(config.mcpServers['blueprint-workshop'].url, {
      method: 'POST',
      headers: { ...config.mcpServers['blueprint-workshop'].headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(mcp.status).toBe(200);
    expect(await mcp.text()).toContain('blueprint_fork');

    await page.reload();
    const row = page.getByTestId('token-row').filter({ hasText: 'laptop editor' });
    await row.waitFor();
    expect(await row.getByTestId('last-used').textContent()).not.toBe('never');
    await page.getByRole('button', { name: 'Revoke laptop editor' }).click();
    // Revoking asks first; Cancel keeps the token.
    const dialog = page.getByRole('dialog', { name: 'Revoke “laptop editor”?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await curl(secret, `/api/blueprints/${bp.payments!.slug}`)).toBe('200');
    await page.getByRole('button', { name: 'Revoke laptop editor' }).click();
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Revoke token' }).click();
    await row.waitFor({ state: 'detached' });
    expect(await curl(secret, `/api/blueprints/${bp.payments!.slug}`)).toBe('401');
  });

  it('searches, filters by tag and sorts the registry', async () => {
    await page.getByRole('link', { name: 'Registry' }).click();
    await page.getByTestId('registry-total').filter({ hasText: '5 blueprints' }).waitFor();
    await screenshotBothSizes(page, 'registry');

    await page.getByLabel('Search blueprints').fill('payments');
    await page.getByTestId('registry-total').filter({ hasText: '3 blueprints' }).waitFor();
    expect((await cardNames(page)).every((n) => n.startsWith('Payments service'))).toBe(true);
    await page.getByLabel('Search blueprints').fill('');
    await page.getByTestId('registry-total').filter({ hasText: '5 blueprints' }).waitFor();

    await page.getByRole('group', { name: 'Filter by tag' }).getByText('frontend', { exact: true }).click();
    await page.getByTestId('registry-total').filter({ hasText: '1 blueprint' }).waitFor();
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
    await page.getByText('No broadcasts yet').waitFor();
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
