import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Download, Page } from 'playwright-core';
import { createTeam } from '../fixtures/architectures';
import { createBlueprint } from '../fixtures/blueprints';
import { expectAccessible } from '../helpers/axe';
import { BrowserSession, browserTestLifecycle } from '../helpers/browser';
import type { SignedInUser } from '../helpers/rest';
import { startTestServer, type TestServer } from '../helpers/server';
import { ensureWebBuilt } from '../helpers/web-build';

jest.setTimeout(180_000);

let server: TestServer;
let browser: BrowserSession;
let ada: SignedInUser;
let bob: SignedInUser;
let carol: SignedInUser;
let bp: any;
const downloads = mkdtempSync(path.join(tmpdir(), 'bw-downloads-'));

beforeAll(async () => {
  await ensureWebBuilt();
  server = await startTestServer();
  browser = await BrowserSession.launch(server.url);
  ada = await server.rest.signUp('ada-bp');
  bob = await server.rest.signUp('bob-bp');
  carol = await server.rest.signUp('carol-bp');
  bp = await createBlueprint(server.rest, ada.token, { name: 'Ledger service', description: 'Double-entry books', tags: ['finance'] });
}, 600_000);

browserTestLifecycle(() => ({ browser, server }));

/** Drops the errors the test provoked on purpose (a refused save, a bad file), failing on any other. */
function acceptErrors(pattern: RegExp): void {
  const unexpected = browser.errors.filter((e) => !pattern.test(e));
  browser.errors.length = 0;
  expect(unexpected).toEqual([]);
}

async function openTab(page: Page, slug: string, tab: string): Promise<void> {
  await page.goto(`/blueprints/${slug}`);
  await page.getByRole('heading', { level: 2 }).first().waitFor();
  await page.getByRole('tab', { name: tab }).click({ timeout: 30_000 });
}

/** Saves a download under the name the page gave it and returns its path. */
async function keep(download: Download): Promise<string> {
  const file = path.join(downloads, download.suggestedFilename());
  await download.saveAs(file);
  return file;
}

/** Picks an option of a segmented control by clicking its label (the radio itself is visually hidden). */
async function choose(page: Page, option: string): Promise<void> {
  await page
    .locator('label')
    .filter({ hasText: new RegExp(`^${option}$`) })
    .click();
  expect(await page.getByRole('radio', { name: option, exact: true }).isChecked()).toBe(true);
}

const restBlueprint = async (id: string, token: string) => (await server.rest.get(`/api/blueprints/${id}`, { token })).body;

describe('the blueprint page for its owner and editors', () => {
  it('edits name, description, tags and visibility, and says in a sentence why a bad tag is refused', async () => {
    const page = await browser.open({ token: ada.token });
    await openTab(page, bp.slug, 'Edit details');
    await expectAccessible(page);
    const tags = page.getByRole('combobox', { name: 'Tags' });
    await tags.fill('not a valid tag!');
    await tags.press('Enter');
    await page.getByRole('button', { name: 'Save details' }).click();
    const refusal = page.getByRole('alert');
    await refusal.waitFor();
    const text = (await refusal.textContent()) ?? '';
    expect(text).toBe('Tag 2 uses characters that are not allowed (letters, digits, dots, dashes and underscores are).');
    expect(text).not.toMatch(/must match pattern|\/|\^/);
    acceptErrors(/VALIDATION_FAILED/);

    await tags.press('Backspace'); // removes the refused tag, the last one
    await page.getByRole('textbox', { name: /^Name/ }).fill('Ledger core');
    await page.getByLabel('Description').fill('Books that balance');
    await tags.fill('accounting');
    await tags.press('Enter');
    await choose(page, 'Private');
    await page.getByRole('button', { name: 'Save details' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.getByRole('heading', { name: 'Ledger core', level: 2 }).waitFor();
    expect(await page.title()).toBe('Ledger core · Blueprint Workshop');
    const saved = await restBlueprint(bp.id, ada.token);
    expect(saved).toMatchObject({ name: 'Ledger core', description: 'Books that balance', tags: ['finance', 'accounting'], visibility: 'private' });
    // Private now: anyone else gets "not found" on the page.
    const other = await browser.open({ token: bob.token });
    await other.goto(`/blueprints/${bp.slug}`);
    await other.getByTestId('not-found').waitFor();
    await choose(page, 'Public');
    await page.getByRole('button', { name: 'Save details' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await restBlueprint(bp.id, ada.token)).visibility).toBe('public');
  });

  it('lets a team member edit details but not delete, and shows no edit tab to others', async () => {
    const team = await createTeam(server.rest, ada.token, [[carol.id, 'member']], 'Ledger team');
    const moved = await server.rest.post(`/api/blueprints/${bp.id}/transfer`, { token: ada.token, body: { team_id: team.id } });
    expect(moved.status).toBe(200);
    const page = await browser.open({ token: carol.token });
    await openTab(page, bp.slug, 'Edit details');
    await page.getByLabel('Description').fill('Books that balance, kept by the team');
    await page.getByRole('button', { name: 'Save details' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await restBlueprint(bp.id, ada.token)).description).toBe('Books that balance, kept by the team');
    expect(await page.getByRole('button', { name: 'Delete blueprint…' }).count()).toBe(0);

    const stranger = await browser.open({ token: bob.token });
    await stranger.goto(`/blueprints/${bp.slug}`);
    await stranger.getByRole('tab', { name: 'Plan', exact: true }).waitFor();
    expect(await stranger.getByRole('tab', { name: 'Edit details' }).count()).toBe(0);
  });

  it('publishes a changelog entry from the changelog tab (owner only)', async () => {
    const page = await browser.open({ token: ada.token });
    await openTab(page, bp.slug, 'Changelog (0)');
    await expectAccessible(page);
    await page.getByLabel('Entry title').fill('Version 2: multi-currency');
    await page.getByLabel('What changed').fill('Amounts carry a currency.');
    await page.getByRole('button', { name: 'Publish entry' }).click();
    await page.getByRole('heading', { name: 'Version 2: multi-currency' }).waitFor();
    await page.getByRole('tab', { name: 'Changelog (1)' }).waitFor();
    const entries = (await server.rest.get(`/api/blueprints/${bp.id}/changelog`, { token: bob.token })).body;
    expect(JSON.stringify(entries)).toContain('Amounts carry a currency.');

    const reader = await browser.open({ token: bob.token });
    await openTab(reader, bp.slug, 'Changelog (1)');
    await reader.getByRole('heading', { name: 'Version 2: multi-currency' }).waitFor();
    expect(await reader.getByLabel('Entry title').count()).toBe(0);
  });

  it('lists every run to the owner and only their own runs to others', async () => {
    for (const token of [bob.token, carol.token]) {
      const started = await server.rest.get(`/api/blueprints/${bp.id}/start`, { token });
      expect(started.status).toBe(200);
    }
    const owner = await browser.open({ token: ada.token });
    await openTab(owner, bp.slug, 'Runs');
    await owner.getByText('2 runs').waitFor();
    const rows = owner.getByTestId('run-row');
    expect(await rows.count()).toBe(2);
    expect(await rows.allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('bob-bp'), expect.stringContaining('carol-bp')]));
    expect(await owner.getByTestId('run-stats').textContent()).toContain('2 running');
    await expectAccessible(owner);

    const runner = await browser.open({ token: bob.token });
    await openTab(runner, bp.slug, 'Runs');
    await runner.getByText('1 run', { exact: true }).waitFor();
    expect(await runner.getByTestId('run-row').allTextContents()).toEqual([expect.stringContaining('bob-bp')]);
    expect(await runner.getByTestId('run-row').first().textContent()).toContain('running');
  });
});

describe('reviews', () => {
  it('replaces the form with one’s own review, which can be edited and deleted', async () => {
    const page = await browser.open({ token: bob.token });
    await openTab(page, bp.slug, 'Reviews (0)');
    await page.getByRole('textbox', { name: /^Review/ }).fill('Solid books');
    await page.getByRole('button', { name: 'Post review' }).click();
    const mine = page.getByTestId('my-review');
    await mine.getByText('Solid books').waitFor();
    expect(await page.getByRole('button', { name: 'Post review' }).count()).toBe(0);
    await page.getByRole('tab', { name: 'Reviews (1)' }).waitFor();
    await expectAccessible(page);

    await mine.getByRole('button', { name: 'Edit your review' }).click();
    await mine.getByRole('textbox', { name: /^Review/ }).fill('Solid books, good tests');
    await mine
      .getByRole('combobox', { name: 'Rating' })
      .or(mine.getByRole('textbox', { name: 'Rating' }))
      .click();
    await page.getByRole('option', { name: '3' }).click();
    await mine.getByRole('button', { name: 'Save review' }).click();
    await mine.getByText('Solid books, good tests').waitFor();
    await mine.getByText('3/5').waitFor();
    const stored = (await server.rest.get(`/api/blueprints/${bp.id}/reviews`, { token: bob.token })).body;
    expect(JSON.stringify(stored)).toMatch(/"rating":3[\s\S]*Solid books, good tests|Solid books, good tests[\s\S]*"rating":3/);

    await mine.getByRole('button', { name: 'Delete your review' }).click();
    await expectAccessible(page);
    await mine.getByRole('button', { name: 'Delete review' }).click();
    await page.getByRole('button', { name: 'Post review' }).waitFor();
    await page.getByRole('tab', { name: 'Reviews (0)' }).waitFor();
    expect(await page.getByTestId('my-review').count()).toBe(0);
  });
});

describe('export and import', () => {
  it('downloads AGENTS.md and imports it back from disk as a fork with the same plan', async () => {
    const page = await browser.open({ token: ada.token });
    await openTab(page, bp.slug, 'Export');
    await page.getByRole('button', { name: 'Download AGENTS.md' }).waitFor();
    await expectAccessible(page);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download AGENTS.md' }).click()]);
    expect(download.suggestedFilename()).toBe('AGENTS.md');
    const file = await keep(download);
    expect(readFileSync(file, 'utf8')).toContain('Design the schema');

    await page.goto('/import');
    await page.getByRole('heading', { name: 'Import a blueprint' }).waitFor();
    expect(await page.title()).toBe('Import a blueprint · Blueprint Workshop');
    await page.getByLabel('Files').setInputFiles(file);
    await page.getByTestId('import-files').getByText('AGENTS.md').waitFor();
    expect(await page.getByRole('radio', { name: 'AGENTS.md' }).isChecked()).toBe(true);
    await page.getByLabel('Name', { exact: true }).fill('Ledger from AGENTS.md');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Import' }).click();
    // The import writes a blueprint and its fork links in one transaction: slow on a loaded machine.
    await page.getByRole('heading', { name: 'Ledger from AGENTS.md', level: 2 }).waitFor({ timeout: 60_000 });
    const { name: sourceName } = await restBlueprint(bp.id, ada.token);
    expect(await page.getByText(/forked from/).textContent()).toContain(`forked from ${sourceName}`);
    const slug = new URL(page.url()).pathname.split('/').at(-1)!;
    const [imported, original] = [await restBlueprint(slug, ada.token), await restBlueprint(bp.id, ada.token)];
    expect(imported.modules).toEqual(original.modules);
    expect(imported.steps).toEqual(original.steps);
    expect(imported.configuration).toEqual(original.configuration);
    expect(imported.design_system).toEqual(original.design_system);
    expect(imported.visibility).toBe('private');
  });

  it('downloads every Cursor rule file and imports them together', async () => {
    const page = await browser.open({ token: ada.token });
    await openTab(page, bp.slug, 'Export');
    await choose(page, 'Cursor rules');
    const all = page.getByRole('button', { name: 'Download all 4 files' });
    await all.waitFor();
    const four = new Promise<Download[]>((resolve) => {
      const got: Download[] = [];
      page.on('download', (d) => {
        got.push(d);
        if (got.length === 4) resolve(got);
      });
    });
    await all.click();
    const files = await Promise.all((await four).map(keep));
    expect(files.map((f) => path.basename(f)).sort()).toEqual(['api.mdc', 'blueprint.mdc', 'db.mdc', 'web.mdc']);

    await page.goto('/import');
    await page.getByLabel('Files').setInputFiles(files);
    await page.getByTestId('import-files').getByText('api.mdc').waitFor();
    expect(await page.getByRole('radio', { name: 'Cursor rules' }).isChecked()).toBe(true);
    await choose(page, 'Public');
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByRole('tab', { name: 'Plan', exact: true }).waitFor({ timeout: 60_000 });
    const slug = new URL(page.url()).pathname.split('/').at(-1)!;
    const [imported, original] = [await restBlueprint(slug, ada.token), await restBlueprint(bp.id, ada.token)];
    expect(imported.modules).toEqual(original.modules);
    expect(imported.steps).toEqual(original.steps);
    expect(imported.configuration).toEqual(original.configuration);
    expect(imported.design_system).toEqual(original.design_system);
    expect(imported.forked_from).toMatchObject({ id: bp.id });
    expect(imported.visibility).toBe('public');
  });

  it('lets another person download CLAUDE.md and blueprint.json and import each from the account page’s link, as a fork of the source', async () => {
    const dan = await server.rest.signUp('dan-bp');
    const page = await browser.open({ token: dan.token });
    await openTab(page, bp.slug, 'Export');
    const files: string[] = [];
    for (const [option, name] of [
      ['CLAUDE.md', 'CLAUDE.md'],
      ['JSON', 'blueprint.json'],
    ] as const) {
      await choose(page, option);
      const button = page.getByRole('button', { name: `Download ${name}` });
      await button.waitFor();
      const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
      expect(download.suggestedFilename()).toBe(name);
      files.push(await keep(download));
    }
    expect(readFileSync(files[0]!, 'utf8')).toMatch(new RegExp(`^---\nid: "${bp.id}"\n`));
    expect(JSON.parse(readFileSync(files[1]!, 'utf8'))).toMatchObject({ id: bp.id });

    const original = await restBlueprint(bp.id, ada.token);
    for (const [file, radio] of [
      [files[0]!, 'CLAUDE.md'],
      [files[1]!, 'JSON'],
    ] as const) {
      await page.goto('/account');
      await page.getByRole('link', { name: 'Import it as a blueprint' }).click();
      await page.getByRole('heading', { name: 'Import a blueprint' }).waitFor();
      await page.getByLabel('Files').setInputFiles(file);
      await page.getByTestId('import-files').getByText(path.basename(file)).waitFor();
      expect(await page.getByRole('radio', { name: radio, exact: true }).isChecked()).toBe(true);
      await page.getByRole('button', { name: 'Import' }).click();
      await page.waitForURL((url) => url.pathname.startsWith('/blueprints/'), { timeout: 60_000 });
      await page.getByText(/forked from/).waitFor({ timeout: 60_000 });
      expect(await page.getByText(/forked from/).textContent()).toContain(`forked from ${original.name}`);
      const imported = await restBlueprint(new URL(page.url()).pathname.split('/').at(-1)!, dan.token);
      expect({ file: path.basename(file), forked_from: imported.forked_from?.id, visibility: imported.visibility }).toEqual({
        file: path.basename(file),
        forked_from: bp.id,
        visibility: 'private',
      });
      expect([imported.modules, imported.steps, imported.configuration, imported.design_system]).toEqual([
        original.modules,
        original.steps,
        original.configuration,
        original.design_system,
      ]);
      expect(imported.id).not.toBe(bp.id);
    }
  });

  it('names the file and line of a file it cannot read, in a sentence', async () => {
    const bad = path.join(downloads, 'CLAUDE.md');
    writeFileSync(bad, '---\nid = 7\n---\n# Nothing\n');
    const page = await browser.open({ token: ada.token });
    await page.goto('/import');
    await page.getByLabel('Files').setInputFiles(bad);
    await page.getByTestId('import-files').getByText('CLAUDE.md').waitFor();
    expect(await page.getByRole('radio', { name: 'CLAUDE.md' }).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Import' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('CLAUDE.md could not be read at line 2: front matter lines are "key: value".');
    await expectAccessible(page);
    acceptErrors(/VALIDATION_FAILED/);
    expect(new URL(page.url()).pathname).toBe('/import');
  });
});

describe('deleting', () => {
  it('asks for the name first, then deletes and lands on one’s own page', async () => {
    const doomed = await createBlueprint(server.rest, ada.token, { name: 'Scratch ledger' });
    const page = await browser.open({ token: ada.token });
    await openTab(page, doomed.slug, 'Edit details');
    await page.getByRole('button', { name: 'Delete blueprint…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete “Scratch ledger”?' });
    await dialog.waitFor();
    await expectAccessible(page);
    const confirm = dialog.getByRole('button', { name: 'Delete forever' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Blueprint name').fill('Scratch');
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await server.rest.get(`/api/blueprints/${doomed.id}`, { token: ada.token })).status).toBe(200);

    await page.getByRole('button', { name: 'Delete blueprint…' }).click();
    await dialog.getByLabel('Blueprint name').fill('Scratch ledger');
    await confirm.click();
    await page.waitForURL(/\/users\/ada-bp$/);
    expect((await server.rest.get(`/api/blueprints/${doomed.id}`, { token: ada.token })).status).toBe(404);
    await page.getByRole('heading', { name: 'Your work', level: 2 }).waitFor();
    expect(await page.title()).toBe('Your work · Blueprint Workshop');
    await page.getByTestId('user-blueprint-count').waitFor();
    expect(await page.getByText('Scratch ledger').count()).toBe(0);
  });
});
