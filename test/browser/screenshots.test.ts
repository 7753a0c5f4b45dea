import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { createArchitecture, addNode } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { projectRoot } from '../helpers/build';
import { BrowserSession } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';
import { ensureWebBuilt } from '../helpers/web-build';

/**
 * The screenshots of docs/screenshots/ (light and dark, as the system chooses): `npm run docs:screenshots`.
 * Skipped in ordinary test runs (it writes into docs/).
 */
const run = process.env.SCREENSHOTS === '1' ? describe : describe.skip;
const outDir = path.join(projectRoot, 'docs', 'screenshots');

jest.setTimeout(600_000);

run('screenshots for docs/', () => {
  let server: TestServer;
  let browser: BrowserSession;

  beforeAll(async () => {
    await ensureWebBuilt();
    server = await startTestServer();
    browser = await BrowserSession.launch(server.url);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('takes the main pages in light and dark', async () => {
    mkdirSync(outDir, { recursive: true });
    const { rest } = server;
    const ada = await rest.signUp('ada');
    const grace = await rest.signUp('grace');
    const payments = await createBlueprint(rest, ada.token, { name: 'Payments service', description: 'Card payments and refunds', tags: ['payments'] });
    await createBlueprint(rest, ada.token, { name: 'Storefront', description: 'A React shop front', tags: ['frontend'] });
    await createBlueprint(rest, ada.token, { name: 'Ledger (draft)', visibility: 'private' });
    const eu = await fork(rest, grace.token, payments.id);
    const arch = await createArchitecture(rest, ada.token, { name: 'Shop platform', description: 'How the shop fits together' });
    await addNode(rest, ada.token, arch.slug, { blueprint_id: payments.id });
    await addNode(rest, ada.token, arch.slug, { blueprint_id: eu.id });
    expect((await rest.post('/api/teams', { token: ada.token, body: { name: 'Platform crew' } })).status).toBe(201);

    const shots: [string, string, (p: Page) => Promise<unknown>][] = [
      ['landing', '/', (p) => p.getByTestId('landing-architecture').first().waitFor()],
      ['registry', '/registry', (p) => p.getByTestId('blueprint-card').first().waitFor()],
      ['blueprint', `/blueprints/${payments.slug}`, (p) => p.getByTestId('activity-feed').waitFor()],
      ['architecture', `/architectures/${arch.slug}`, (p) => p.getByTestId('arch-node').nth(1).waitFor()],
      ['your-work', '/users/ada', (p) => p.getByTestId('blueprint-card').first().waitFor()],
      ['account', '/account', (p) => p.getByRole('heading', { name: 'Account and MCP setup' }).waitFor()],
    ];
    for (const scheme of ['light', 'dark'] as const) {
      const page = await browser.open({ token: ada.token, colorScheme: scheme });
      for (const [name, url, ready] of shots) {
        await page.goto(url);
        await ready(page);
        await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
        await page.screenshot({ path: path.join(outDir, `${name}-${scheme}.png`) });
      }
    }
    const teamId = ((await rest.get('/api/teams', { token: ada.token })).body.items ?? [])[0]?.id;
    if (teamId) {
      for (const scheme of ['light', 'dark'] as const) {
        const page = await browser.open({ token: ada.token, colorScheme: scheme });
        await page.goto(`/teams/${teamId}`);
        await page.getByTestId('team-chart').waitFor();
        await page.screenshot({ path: path.join(outDir, `team-${scheme}.png`) });
      }
    }
  });
});
