import type { Page } from 'playwright-core';
import { addNode, createArchitecture } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { expectAccessible } from '../helpers/axe';
import { BrowserSession, untilInPage, browserTestLifecycle } from '../helpers/browser';
import type { SignedInUser } from '../helpers/rest';
import { startTestServer, type TestServer } from '../helpers/server';
import { ensureWebBuilt } from '../helpers/web-build';

jest.setTimeout(120_000);

let server: TestServer;
let browser: BrowserSession;
let maker: SignedInUser;
let reader: SignedInUser;
let relay: { id: string; slug: string; name: string };

beforeAll(async () => {
  await ensureWebBuilt();
  server = await startTestServer();
  browser = await BrowserSession.launch(server.url);
  const { rest } = server;
  maker = await rest.signUp('state-maker');
  reader = await rest.signUp('state-reader');
  relay = await createBlueprint(rest, maker.token, { name: 'Payments relay', description: 'Moves money' });
}, 600_000);

browserTestLifecycle(() => ({ browser, server }));

describe('tabs of one browser stay current', () => {
  it('drops the unread badge in another tab when an item is marked read', async () => {
    const { rest } = server;
    // A fork of the maker's blueprint: the maker's broadcasts reach the reader.
    await fork(rest, reader.token, relay.id);
    const sent = await rest.post(`/api/blueprints/${relay.id}/broadcasts`, {
      token: maker.token,
      body: { message: 'Relay retries changed', type: 'changelog', severity: 'minor' },
    });
    expect(sent.status).toBe(201);

    const inbox = await browser.open({ token: reader.token });
    await inbox.goto('/inbox');
    const other = await inbox.context().newPage();
    await other.goto('/registry');
    for (const tab of [inbox, other]) await tab.getByTestId('inbox-badge').filter({ hasText: '1' }).waitFor();
    // The item names the blueprint's owner: forks share names.
    await inbox.getByTestId('inbox-item').filter({ hasText: 'Relay retries changed' }).filter({ hasText: 'by state-maker' }).waitFor();
    await expectAccessible(inbox);

    await inbox.getByRole('button', { name: 'Mark “Relay retries changed” read' }).click();
    await inbox.getByTestId('inbox-badge').waitFor({ state: 'detached' });
    // The other tab heard of it without a reload (the server sends no event for one's own read marks).
    await other.getByTestId('inbox-badge').waitFor({ state: 'detached' });
    expect(await other.getByRole('link', { name: 'Inbox' }).count()).toBe(1);
  });
});

describe('the colour scheme follows the system', () => {
  const scheme = async (page: Page) =>
    page.evaluate<{ attr: string | null; background: string }>(
      "({ attr: document.documentElement.getAttribute('data-mantine-color-scheme'), background: getComputedStyle(document.body).backgroundColor })",
    );
  /** Relative luminance (0 black .. 1 white) of a computed `rgb(r, g, b)` colour. */
  const luminance = (rgb: string) => {
    const [r, g, b] = rgb
      .match(/\d+(\.\d+)?/g)!
      .slice(0, 3)
      .map(Number) as [number, number, number];
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  };

  it('is dark on a dark system and light on a light one, and both pass axe', async () => {
    const dark = await browser.open({ token: reader.token, colorScheme: 'dark' });
    await dark.goto('/registry');
    await dark.getByTestId('blueprint-card').first().waitFor();
    const d = await scheme(dark);
    expect(d.attr).toBe('dark');
    expect(luminance(d.background)).toBeLessThan(0.25);
    await expectAccessible(dark);

    const light = await browser.open({ token: reader.token, colorScheme: 'light' });
    await light.goto('/registry');
    await light.getByTestId('blueprint-card').first().waitFor();
    const l = await scheme(light);
    expect(l.attr).toBe('light');
    expect(luminance(l.background)).toBeGreaterThan(0.9);
  });
});

describe('loading and empty states say what is happening', () => {
  it('says what is loading while the answer is slow, instead of a blank page', async () => {
    const page = await browser.open({ token: reader.token });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/graphql', async (route) => {
      if ((route.request().postData() ?? '').includes('query Registry')) await held;
      await route.continue();
    });
    await page.goto('/registry');
    // No axe pass while the spinner turns (the axe helper waits for animations to end); the next test checks this page.
    await page.getByRole('status').filter({ hasText: 'Loading blueprints…' }).waitFor();
    release();
    await page.getByTestId('blueprint-card').first().waitFor();
    expect(await page.getByRole('status').filter({ hasText: 'Loading blueprints…' }).count()).toBe(0);
    await page.unroute('**/graphql');
  });

  it('says nothing matched, with no "Page 1 of 1", and how to find more', async () => {
    const page = await browser.open({ token: reader.token });
    await page.goto('/registry?q=zzqxv');
    await page.getByTestId('registry-empty').filter({ hasText: 'Nothing matches.' }).waitFor();
    expect(await page.getByTestId('registry-total').textContent()).toBe('0 blueprints');
    expect(await page.getByText(/Page \d+ of \d+/).count()).toBe(0);
    expect(await page.getByTestId('blueprint-card').count()).toBe(0);
    await expectAccessible(page);
  });

  it('tells the owner of a new empty architecture what to do first; a visitor is told it is empty', async () => {
    const arch = await createArchitecture(server.rest, maker.token, { name: 'Blank slate', visibility: 'public' });
    const page = await browser.open({ token: maker.token });
    await page.goto(`/architectures/${arch.slug}`);
    await page.getByTestId('empty-architecture').filter({ hasText: 'find a blueprint under “Find a blueprint” and add it' }).waitFor();
    await expectAccessible(page);
    const visitor = await browser.open();
    await visitor.goto(`/architectures/${arch.slug}`);
    await visitor.getByTestId('empty-architecture').filter({ hasText: 'This architecture holds no blueprints yet.' }).waitFor();
  });
});

describe('names that clash, and the architecture side panel', () => {
  let slug: string;

  beforeAll(async () => {
    const { rest } = server;
    const twin = await createBlueprint(rest, maker.token, { name: 'Twin relay' });
    const copy = await fork(rest, reader.token, twin.id);
    const arch = await createArchitecture(rest, maker.token, { name: 'Twins', visibility: 'public' });
    slug = arch.slug;
    await addNode(rest, maker.token, slug, { blueprint_id: twin.id, position_x: 0, position_y: 0 });
    await addNode(rest, maker.token, slug, { blueprint_id: copy.id, position_x: 320, position_y: 0 });
  });

  it('finds a blueprint for the node picker from the start of a word', async () => {
    const page = await browser.open({ token: maker.token });
    await page.goto(`/architectures/${slug}`);
    await page.getByLabel('Find a blueprint').fill('paym');
    await page.getByRole('button', { name: 'Add Payments relay by state-maker', exact: true }).waitFor();
  });

  it('names owners on canvas nodes, pickers and the two Remove buttons of same-named blueprints', async () => {
    const page = await browser.open({ token: maker.token });
    await page.goto(`/architectures/${slug}`);
    await page.getByTestId('arch-node').nth(1).waitFor();
    expect((await page.getByTestId('arch-node').allTextContents()).map((t) => t.match(/by [\w-]+/)?.[0]).sort()).toEqual(['by state-maker', 'by state-reader']);
    const removeNames = await page
      .getByTestId('node-list')
      .getByRole('button', { name: /^Remove/ })
      .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    expect(removeNames.sort()).toEqual(['Remove node Twin relay by state-maker', 'Remove node Twin relay by state-reader']);
    await page.getByRole('combobox', { name: 'From' }).click();
    await page.getByRole('option', { name: 'Twin relay by state-reader' }).waitFor();
    await page.getByRole('option', { name: 'Twin relay by state-maker' }).waitFor();
    await page.keyboard.press('Escape');
    await expectAccessible(page);
  });

  it('clears the edge form once the edge is added', async () => {
    const page = await browser.open({ token: maker.token });
    await page.goto(`/architectures/${slug}`);
    await page.getByRole('combobox', { name: 'From' }).click();
    await page.getByRole('option', { name: 'Twin relay by state-maker' }).click();
    await page.getByRole('combobox', { name: 'To' }).click();
    await page.getByRole('option', { name: 'Twin relay by state-reader' }).click();
    await page.getByRole('combobox', { name: 'Edge type' }).click();
    await page.getByRole('option', { name: 'Custom (label)' }).click();
    await page.getByRole('textbox', { name: 'Label' }).fill('settlement');
    await page.getByRole('button', { name: 'Add edge' }).click();
    await page.getByTestId('edge-list').getByText('Twin relay by state-maker → Twin relay by state-reader (custom: settlement)').waitFor();
    expect(await page.getByRole('combobox', { name: 'From' }).inputValue()).toBe('');
    expect(await page.getByRole('combobox', { name: 'To' }).inputValue()).toBe('');
    expect(await page.getByRole('textbox', { name: 'Label' }).inputValue()).toBe('');
    expect(await page.getByRole('button', { name: 'Add edge' }).isDisabled()).toBe(true);
  });
});

describe('titles, counts and unknown paths', () => {
  it('gives each page its own title', async () => {
    const page = await browser.open({ token: reader.token });
    const titles: Record<string, string> = {
      '/registry': 'Registry',
      '/inbox': 'Inbox',
      '/teams': 'Teams',
      '/account': 'Account',
      '/architectures': 'Architectures',
      [`/blueprints/${relay.slug}`]: 'Payments relay',
    };
    for (const [path, title] of Object.entries(titles)) {
      await page.goto(path);
      await untilInPage(page, `document.title === ${JSON.stringify(`${title} · Blueprint Workshop`)}`);
      // The list of architectures is checked by axe here; the other pages are checked where they are used.
      if (path === '/architectures') await expectAccessible(page);
    }
  });

  it('writes "1 fork", "1 module" and "1 step", never "1 forks" or "1 steps"', async () => {
    const { rest } = server;
    const solo = await createBlueprint(rest, maker.token, {
      name: 'Solo worker',
      modules: [{ key: 'job', name: 'Job', kind: 'backend', depends_on: [] }],
      steps: [{ key: 'run', module_key: 'job', title: 'Run it' }],
    });
    await fork(rest, reader.token, solo.id);
    const page = await browser.open({ token: maker.token });
    await page.goto(`/blueprints/${solo.slug}`);
    await page.getByText('1 fork', { exact: true }).waitFor();
    await page.getByText('1 module', { exact: true }).waitFor();
    await page.getByText('1 step', { exact: true }).waitFor();
    const arch = await createArchitecture(rest, maker.token, { name: 'Solo map' });
    const added = await addNode(rest, maker.token, arch.slug, { blueprint_id: solo.id, position_x: 0, position_y: 0 });
    await page.goto(`/architectures/${arch.slug}?zoom=architecture&node=${added.id}`);
    await page.getByTestId('module-node').filter({ hasText: 'backend · 1 step' }).waitFor();
    await page.getByText('Solo worker: 1 module.').waitFor();
    expect(await page.locator('body').innerText()).not.toMatch(/\b1 (forks|steps|modules)\b/i);
  });

  it('answers an unknown path with the not-found page and status 404; an unknown team is the page, not JSON', async () => {
    const page = await browser.open({ token: reader.token });
    const res = await page.goto('/nothing-lives-here');
    expect(res!.status()).toBe(404);
    await page.getByTestId('not-found').waitFor();
    expect(await page.title()).toBe('Not found · Blueprint Workshop');
    browser.errors.splice(0); // the 404 itself, asked for above
    const team = await page.goto('/teams/x');
    expect(team!.headers()['content-type']).toMatch(/text\/html/);
    await page.getByTestId('not-found').filter({ hasText: 'no such team' }).waitFor();
    await expectAccessible(page);
  });
});
