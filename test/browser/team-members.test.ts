import type { Page } from 'playwright-core';
import { createTeam } from '../fixtures/architectures';
import { expectAccessible } from '../helpers/axe';
import { BrowserSession, browserTestLifecycle } from '../helpers/browser';
import type { SignedInUser } from '../helpers/rest';
import { startTestServer, type TestServer } from '../helpers/server';
import { ensureWebBuilt } from '../helpers/web-build';

jest.setTimeout(120_000);

let server: TestServer;
let browser: BrowserSession;
let lead: SignedInUser;
let newcomer: SignedInUser;
let watcher: SignedInUser;
let team: { id: string; name: string };

beforeAll(async () => {
  await ensureWebBuilt();
  server = await startTestServer();
  browser = await BrowserSession.launch(server.url);
  const { rest } = server;
  lead = await rest.signUp('crew-lead');
  newcomer = await rest.signUp('crew-newcomer');
  watcher = await rest.signUp('crew-watcher');
  team = await createTeam(rest, lead.token, [[watcher.id, 'viewer']], 'Release crew');
}, 600_000);

browserTestLifecycle(() => ({ browser, server }));

/** The team's members as the API has them: name -> role. */
async function membersOverApi(): Promise<Record<string, string>> {
  const res = await server.rest.get(`/api/teams/${team.id}`, { token: lead.token });
  expect(res.status).toBe(200);
  return Object.fromEntries((res.body.members as { name: string; role: string }[]).map((m) => [m.name, m.role.toLowerCase()]));
}

const row = (page: Page, name: string) => page.getByTestId('team-member').filter({ hasText: name });

describe('team members on /teams/:id', () => {
  let page: Page;

  it('lets the owner add a person by username with a role; unknown and duplicate names get sentences', async () => {
    page = await browser.open({ token: lead.token });
    await page.goto(`/teams/${team.id}`);
    await page.getByRole('heading', { name: 'Release crew', level: 2 }).waitFor();
    await row(page, 'crew-lead').filter({ hasText: 'owner' }).waitFor();
    // The owner's own row has no role picker and no Remove button.
    expect(await page.getByRole('combobox', { name: 'Role of crew-lead' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Remove crew-lead' }).count()).toBe(0);

    const form = page.getByRole('form', { name: 'Add a member' });
    await form.getByRole('textbox', { name: 'Username' }).fill('nobody-by-that-name');
    await form.getByRole('button', { name: 'Add member' }).click();
    await form.getByRole('alert').filter({ hasText: 'There is no person with the username “nobody-by-that-name”.' }).waitFor();

    await form.getByRole('textbox', { name: 'Username' }).fill('crew-newcomer');
    await form.getByRole('combobox', { name: 'Role' }).click();
    await page.getByRole('option', { name: 'Viewer' }).click();
    await form.getByRole('button', { name: 'Add member' }).click();
    await page.getByRole('combobox', { name: 'Role of crew-newcomer' }).waitFor();
    expect(await page.getByRole('combobox', { name: 'Role of crew-newcomer' }).inputValue()).toBe('Viewer');
    expect(await form.getByRole('textbox', { name: 'Username' }).inputValue()).toBe('');
    expect((await membersOverApi())['crew-newcomer']).toBe('viewer');
    await page.getByTestId('audit-entry').filter({ hasText: 'member.added' }).first().waitFor();

    // Adding them again: the API's conflict, as a sentence.
    await form.getByRole('textbox', { name: 'Username' }).fill('crew-newcomer');
    await form.getByRole('button', { name: 'Add member' }).click();
    const alert = form.getByRole('alert').filter({ hasText: 'already a member of the team.' });
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/^[A-Z].*\.$/);
    await expectAccessible(page);
    const unexpected = browser.errors.filter((e) => !/\b409\b/.test(e));
    browser.errors.length = 0;
    expect(unexpected).toEqual([]);
  });

  it('changes a member’s role', async () => {
    await page.getByRole('combobox', { name: 'Role of crew-newcomer' }).click();
    await page.getByRole('option', { name: 'Admin' }).click();
    await page.getByTestId('audit-entry').filter({ hasText: 'member.role_changed' }).waitFor();
    expect((await membersOverApi())['crew-newcomer']).toBe('admin');
    await page.reload();
    await page.getByRole('combobox', { name: 'Role of crew-newcomer' }).waitFor();
    expect(await page.getByRole('combobox', { name: 'Role of crew-newcomer' }).inputValue()).toBe('Admin');
  });

  it('removes a member only after a confirmation', async () => {
    await page.getByRole('button', { name: 'Remove crew-newcomer' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove crew-newcomer from Release crew?' });
    await dialog.waitFor();
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await membersOverApi()).toHaveProperty('crew-newcomer');

    await page.getByRole('button', { name: 'Remove crew-newcomer' }).click();
    await dialog.getByRole('button', { name: 'Remove member' }).click();
    await row(page, 'crew-newcomer').waitFor({ state: 'detached' });
    expect(await membersOverApi()).not.toHaveProperty('crew-newcomer');
    await page.getByTestId('audit-entry').filter({ hasText: 'member.removed' }).waitFor();
  });

  it('shows a viewer the members without any way to change them', async () => {
    const theirs = await browser.open({ token: watcher.token });
    await theirs.goto(`/teams/${team.id}`);
    await row(theirs, 'crew-lead').filter({ hasText: 'owner' }).waitFor();
    await row(theirs, 'crew-watcher').filter({ hasText: 'viewer' }).waitFor();
    expect(await theirs.getByRole('combobox', { name: /^Role of / }).count()).toBe(0);
    expect(await theirs.getByRole('button', { name: /^Remove / }).count()).toBe(0);
    expect(await theirs.getByRole('form', { name: 'Add a member' }).count()).toBe(0);
    await expectAccessible(theirs);
    // The one who was removed no longer sees the team at all.
    const gone = await browser.open({ token: newcomer.token });
    await gone.goto(`/teams/${team.id}`);
    await gone.getByTestId('not-found').filter({ hasText: 'no such team' }).waitFor();
  });
});
