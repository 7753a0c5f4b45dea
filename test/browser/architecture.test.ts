import type { Page } from 'playwright-core';
import { addEdge, addNode, createArchitecture } from '../fixtures/architectures';
import { createBlueprint, fork } from '../fixtures/blueprints';
import { expectAccessible } from '../helpers/axe';
import { BrowserSession, DESKTOP, screenshotBothSizes, browserTestLifecycle } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';
import { ensureWebBuilt } from '../helpers/web-build';

jest.setTimeout(120_000);

let server: TestServer;
let browser: BrowserSession;
let token: string;
let page: Page;
let slug: string;
const bp: Record<string, { id: string; slug: string; name: string }> = {};

beforeAll(async () => {
  await ensureWebBuilt();
  server = await startTestServer();
  browser = await BrowserSession.launch(server.url);
  token = await server.rest.agentToken('architect');
  const other = await server.rest.agentToken('other');
  bp.shop = await createBlueprint(server.rest, other, {
    name: 'Shop',
    modules: [
      { key: 'db', name: 'Database', kind: 'data', depends_on: [] },
      { key: 'api', name: 'Orders API', kind: 'backend', depends_on: ['db'] },
      { key: 'ui', name: 'Shop UI', kind: 'frontend', depends_on: ['api'] },
    ],
    steps: [
      { key: 'schema', module_key: 'db', title: 'Create tables' },
      { key: 'orders', module_key: 'api', title: 'Order endpoints' },
      { key: 'payments', module_key: 'api', title: 'Payment endpoints' },
      { key: 'pages', module_key: 'ui', title: 'Product pages' },
    ],
  });
  bp.shopFork = { ...(await fork(server.rest, token, bp.shop!.id)) };
  bp.mailer = await createBlueprint(server.rest, other, { name: 'Mailer' });
});

browserTestLifecycle(() => ({ browser, server }));

/** The architecture as the API has it (GraphQL over HTTP with the same token). */
async function readBack(): Promise<{
  nodes: { id: string; position: { x: number; y: number }; card: { name: string } | null }[];
  edges: { id: string; computed: boolean }[];
}> {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({
      query: 'query($slug: String!) { architecture(slug: $slug) { nodes { id position { x y } card { name } } edges { id computed } } }',
      variables: { slug },
    }),
  });
  const body = (await res.json()) as { data: { architecture: Awaited<ReturnType<typeof readBack>> } };
  return body.data.architecture;
}

async function addBlueprint(p: Page, name: string, owner: string, nodesAfter: number) {
  await p.getByLabel('Find a blueprint').fill(name);
  await p.getByRole('button', { name: `Add ${name} by ${owner}`, exact: true }).click();
  await p
    .getByTestId('node-list')
    .getByRole('listitem')
    .nth(nodesAfter - 1)
    .waitFor();
  await p
    .getByTestId('arch-node')
    .nth(nodesAfter - 1)
    .waitFor();
}

describe('the architecture viewer and editor', () => {
  it('creates an architecture and adds blueprints; lineage edges are shown and cannot be removed', async () => {
    page = await browser.open({ viewport: DESKTOP, token });
    await page.goto('/architectures');
    await page.getByLabel('Name').fill('Web shop');
    await page.getByLabel('Description').fill('Everything the shop runs on');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/architectures\/[^/]+$/);
    slug = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    await page.getByRole('heading', { name: 'Web shop' }).waitFor();

    // The fork keeps its parent's name; the owner tells them apart.
    await addBlueprint(page, 'Shop', 'other', 1);
    await addBlueprint(page, 'Shop', 'architect', 2);
    await addBlueprint(page, 'Mailer', 'other', 3);

    // The fork link between the two Shop nodes is computed: listed as lineage, with no Remove button.
    const lineageRow = page.getByTestId('edge-list').getByText('Shop by other → Shop by architect (lineage fork)');
    await lineageRow.waitFor();
    expect(await page.getByRole('button', { name: /Remove edge Shop by other → Shop by architect \(lineage/ }).count()).toBe(0);
    const composition = page.getByTestId('composition-bar').first();
    expect(await composition.getAttribute('aria-label')).toMatch(/1 data, 1 backend, 1 frontend|1 backend/);
  });

  it('switches all three zoom levels: composition bars, modules, swimlanes', async () => {
    await page.getByTestId('ecosystem-canvas').waitFor();
    expect(await page.getByTestId('composition-bar').count()).toBe(3);
    await screenshotBothSizes(page, 'architecture-ecosystem');

    await page.getByText('2 Architecture', { exact: true }).click();
    await page.getByTestId('module-graph').waitFor();
    await page.getByTestId('module-node').nth(2).waitFor();
    expect(await page.getByTestId('module-node').count()).toBe(3);
    await screenshotBothSizes(page, 'architecture-modules');

    // A click on a module opens its detail: Orders API with its dependency and dependent lanes.
    await page.locator('[data-testid="module-node"][data-key="api"]').click();
    await page.getByTestId('swimlanes').waitFor();
    const lanes = page.getByTestId('swimlane');
    await lanes.nth(2).waitFor();
    expect(await lanes.locator('th').allTextContents()).toEqual(['Orders APImodule', 'Databasedependency', 'Shop UIdependent']);
    await page.getByTestId('swimlanes').getByText('Payment endpoints').waitFor();
    await screenshotBothSizes(page, 'architecture-swimlanes');

    // The zoom level, the node and the module are in the URL; Back steps out to zoom 2, not off the page.
    const url = new URL(page.url());
    expect(url.searchParams.get('zoom')).toBe('module');
    expect(url.searchParams.get('module')).toBe('api');
    expect(url.searchParams.get('node')).toBeTruthy();
    await page.goBack();
    await page.getByTestId('module-graph').waitFor();
    expect(new URL(page.url()).searchParams.get('zoom')).toBe('architecture');
    // Reloading keeps the view.
    await page.goForward();
    await page.reload();
    await page.getByTestId('swimlanes').getByText('Payment endpoints').waitFor();

    await page.getByText('1 Ecosystem', { exact: true }).click();
    await page.getByTestId('ecosystem-canvas').waitFor();

    // A double-click on a blueprint opens its modules (and does not zoom the canvas instead).
    await page.getByTestId('arch-node').first().dblclick();
    await page.getByTestId('module-graph').waitFor();
    await page.getByText('1 Ecosystem', { exact: true }).click();
    await page.getByTestId('ecosystem-canvas').waitFor();
    await expectAccessible(page);
  });

  it('saves a dragged node position through the layout mutation', async () => {
    const before = await readBack();
    const mailer = before.nodes.find((n) => n.card?.name === 'Mailer')!;
    const box = (await page.locator(`[data-testid="arch-node"][data-node-id="${mailer.id}"]`).boundingBox())!;
    const saved = page.waitForResponse((r) => r.url().endsWith('/graphql') && (r.request().postData() ?? '').includes('UpdateArchitectureLayout'));
    await page.mouse.move(box.x + box.width / 2, box.y + 10);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 60, box.y + 50, { steps: 8 });
    await page.mouse.move(box.x + box.width / 2 + 120, box.y + 90, { steps: 8 });
    await page.mouse.up();
    expect((await saved).status()).toBe(200);
    const after = (await readBack()).nodes.find((n) => n.id === mailer.id)!;
    expect(after.position.x).toBeGreaterThan(mailer.position.x + 20);
    expect(after.position.y).toBeGreaterThan(mailer.position.y + 20);
    // The other nodes stayed where they were.
    for (const n of before.nodes.filter((x) => x.id !== mailer.id)) expect((await readBack()).nodes.find((x) => x.id === n.id)!.position).toEqual(n.position);
  });

  it('two browser contexts edit one architecture and each sees the other change live', async () => {
    const second = await browser.open({ viewport: DESKTOP, token });
    await second.goto(`/architectures/${slug}`);
    await second.getByTestId('arch-node').nth(2).waitFor();

    // The first adds a manual edge: the second sees it without a reload.
    await page.getByRole('combobox', { name: 'From' }).click();
    await page.getByRole('option', { name: 'Mailer by other' }).click();
    await page.getByRole('combobox', { name: 'To' }).click();
    await page.getByRole('option', { name: 'Shop by other' }).click();
    await page.getByRole('combobox', { name: 'Edge type' }).click();
    await page.getByRole('option', { name: 'Event' }).click();
    await page.getByRole('button', { name: 'Add edge' }).click();
    await second.getByTestId('edge-list').getByText('Mailer by other → Shop by other (event)').waitFor();
    await second.getByTestId('last-change').filter({ hasText: 'edge added' }).waitFor();

    // The second removes that edge and the Mailer node: the first sees both go.
    await second.getByRole('button', { name: 'Remove edge Mailer by other → Shop by other (event)' }).click();
    await page.getByTestId('edge-list').getByText('Mailer by other → Shop by other (event)').waitFor({ state: 'detached' });
    await second.getByRole('button', { name: 'Remove node Mailer by other' }).click();
    await page.getByTestId('node-list').getByText('Mailer').waitFor({ state: 'detached' });
    expect(await page.getByTestId('arch-node').count()).toBe(2);
    expect((await readBack()).nodes.map((n) => n.card?.name)).toEqual(['Shop', 'Shop']);
  });

  it('exports Mermaid, DOT and JSON', async () => {
    await page.getByRole('button', { name: 'Mermaid' }).click();
    await page.getByTestId('export-text').filter({ hasText: 'flowchart' }).waitFor();
    await page.getByRole('button', { name: 'DOT' }).click();
    await page.getByTestId('export-text').filter({ hasText: 'digraph' }).waitFor();
    await page.getByRole('button', { name: 'JSON' }).click();
    await page.getByTestId('export-text').filter({ hasText: '"nodes"' }).waitFor();
  });
});

/** An edge's path ends and its nodes' boxes, all in flow coordinates (React Flow draws paths in them). */
async function edgeGeometry(p: Page, edgeId: string, sourceId: string, targetId: string) {
  const d = (await p.getByTestId(`rf__edge-${edgeId}`).locator('path.react-flow__edge-path').getAttribute('d'))!;
  const n = d.match(/-?\d+(\.\d+)?/g)!.map(Number);
  const box = async (id: string) => {
    const el = p.locator(`.react-flow__node[data-id="${id}"]`);
    // offsetWidth/offsetHeight: the card's size before the viewport's zoom, i.e. in flow coordinates.
    const size = await el.evaluate((e) => {
      const box = e as unknown as { offsetWidth: number; offsetHeight: number };
      return { w: box.offsetWidth, h: box.offsetHeight };
    });
    const pos = placed.get(id)!;
    return { left: pos.x, right: pos.x + size.w, top: pos.y, bottom: pos.y + size.h };
  };
  return { start: { x: n[0]!, y: n[1]! }, end: { x: n.at(-2)!, y: n.at(-1)! }, source: await box(sourceId), target: await box(targetId) };
}

const placed = new Map<string, { x: number; y: number }>();

describe('the ecosystem canvas draws edges and labels where they can be read', () => {
  let canvasSlug: string;
  const node: Record<string, string> = {};
  const edge: Record<string, string> = {};

  beforeAll(async () => {
    const { rest } = server;
    const arch = await createArchitecture(rest, token, { name: 'Row of boxes', visibility: 'public' });
    canvasSlug = arch.slug;
    // Left, Middle and Right in one row; Lower under Left. The Left -> Right edge runs straight across Middle.
    const spots: Record<string, [number, number]> = { left: [0, 0], middle: [300, 0], right: [600, 0], lower: [0, 300] };
    for (const [key, [x, y]] of Object.entries(spots)) {
      const b = await createBlueprint(server.rest, token, { name: `${key} box` });
      node[key] = (await addNode(rest, token, canvasSlug, { blueprint_id: b.id, position_x: x, position_y: y })).id;
      placed.set(node[key]!, { x, y });
    }
    const link = async (name: string, from: string, to: string, label: string) => {
      edge[name] = (await addEdge(rest, token, canvasSlug, { source_node_id: node[from], target_node_id: node[to], edge_type: 'custom', label })).id;
    };
    await link('across', 'left', 'right', 'checkout');
    await link('back', 'right', 'middle', 'refunds');
    await link('up', 'lower', 'left', 'ledger');
  });

  it('starts each edge on the side of its source facing the target, and ends it on the side facing back', async () => {
    const p = await browser.open({ viewport: DESKTOP, token });
    await p.goto(`/architectures/${canvasSlug}`);
    // The labels show once React Flow has measured the cards and drawn the paths (a straight vertical path has
    // no width, which Playwright counts as hidden, so the edge itself is not waited for).
    for (const id of Object.values(edge)) await p.locator(`[data-testid="edge-label"][data-edge-id="${id}"]`).waitFor();
    const near = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThanOrEqual(8);

    // Left to right: leaves Left's right side, enters Right's left side.
    const across = await edgeGeometry(p, edge.across!, node.left!, node.right!);
    near(across.start.x, across.source.right);
    near(across.end.x, across.target.left);
    // Right to left: leaves Right's left side, enters Middle's right side.
    const back = await edgeGeometry(p, edge.back!, node.right!, node.middle!);
    near(back.start.x, back.source.left);
    near(back.end.x, back.target.right);
    // Bottom to top: leaves Lower's top, enters Left's bottom.
    const up = await edgeGeometry(p, edge.up!, node.lower!, node.left!);
    near(up.start.y, up.source.top);
    near(up.end.y, up.target.bottom);
    await expectAccessible(p);
  });

  it('draws an edge label above a node it crosses', async () => {
    const p = await browser.open({ viewport: DESKTOP, token });
    await p.goto(`/architectures/${canvasSlug}`);
    const label = p.locator(`[data-testid="edge-label"][data-edge-id="${edge.across}"]`);
    await label.filter({ hasText: 'custom: checkout' }).waitFor();
    const middle = (await p.locator(`.react-flow__node[data-id="${node.middle}"]`).boundingBox())!;
    const box = (await label.boundingBox())!;
    const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    // The label sits over the Middle card (so a card could hide it) ...
    expect(centre.x).toBeGreaterThan(middle.x);
    expect(centre.x).toBeLessThan(middle.x + middle.width);
    expect(centre.y).toBeGreaterThan(middle.y);
    expect(centre.y).toBeLessThan(middle.y + middle.height);
    // ... and it is what is drawn on top there, also with the card selected (raised).
    const topmost = `(([x, y]) => document.elementFromPoint(x, y)?.closest('[data-testid="edge-label"]')?.getAttribute('data-edge-id') ?? null)`;
    expect(await p.evaluate(`${topmost}([${centre.x}, ${centre.y}])`)).toBe(edge.across);
    await p.locator(`.react-flow__node[data-id="${node.middle}"]`).click({ position: { x: 10, y: 10 } });
    await p.locator(`.react-flow__node.selected[data-id="${node.middle}"]`).waitFor();
    expect(await p.evaluate(`${topmost}([${centre.x}, ${centre.y}])`)).toBe(edge.across);
  });

  it('does not zoom on a double-click on the canvas; a double-click on a blueprint opens its modules in the URL', async () => {
    const p = await browser.open({ viewport: DESKTOP, token });
    await p.goto(`/architectures/${canvasSlug}`);
    await p.getByTestId('arch-node').nth(3).waitFor();
    const viewport = p.locator('.react-flow__viewport');
    const before = await viewport.getAttribute('style');
    const pane = (await p.locator('.react-flow__pane').boundingBox())!;
    await p.mouse.dblclick(pane.x + pane.width - 30, pane.y + 30);
    expect(await viewport.getAttribute('style')).toBe(before);

    // Middle's centre is under the across edge's label (see the test above): double-click its corner.
    await p.locator(`[data-testid="arch-node"][data-node-id="${node.middle}"]`).dblclick({ position: { x: 10, y: 10 } });
    await p.getByTestId('module-graph').waitFor();
    const url = new URL(p.url());
    expect(url.searchParams.get('zoom')).toBe('architecture');
    expect(url.searchParams.get('node')).toBe(node.middle);
  });

  it('gives a read-only viewer no drag hint, no dragging and no handles; the editor gets the hint', async () => {
    const owner = await browser.open({ viewport: DESKTOP, token });
    await owner.goto(`/architectures/${canvasSlug}`);
    await owner.getByText(/^Drag a blueprint/).waitFor();
    expect(await owner.locator('.react-flow__node.draggable').count()).toBe(4);

    const anonymous = await browser.open({ viewport: DESKTOP });
    await anonymous.goto(`/architectures/${canvasSlug}`);
    await anonymous.getByTestId('arch-node').nth(3).waitFor();
    await anonymous.getByText(/^Double-click a blueprint to see its modules/).waitFor();
    expect(await anonymous.getByText(/drag/i).count()).toBe(0);
    expect(await anonymous.locator('.react-flow__node.draggable').count()).toBe(0);
    expect(await anonymous.locator('.react-flow__handle.connectable').count()).toBe(0);
    await expectAccessible(anonymous);
  });
});
