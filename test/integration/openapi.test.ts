import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import { registerOpenApi, routesOf } from '../../src/platform/http/openapi';
import { obj, serviceChecked, str } from '../../src/platform/contract';
import { startTestServer, type TestServer } from '../helpers/server';
import { DOCUMENTED_ERROR_CODES } from '../helpers/error-codes';
import { assetUrlsOf, fetchAll } from '../helpers/assets';

const run = promisify(execFile);

let server: TestServer;
let doc: any;
beforeAll(async () => {
  server = await startTestServer();
  doc = (await server.rest.get('/openapi.json')).body;
});
afterAll(() => server.close());

/** `/api/blueprints/:id` -> `/api/blueprints/{id}` */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document (checked by @seriousme/openapi-schema-validator)', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const dir = await mkdtemp(join(tmpdir(), 'openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(doc));
      const cli = require.resolve('@seriousme/openapi-schema-validator/bin/validate-api-cli.js');
      const { stdout } = await run(process.execPath, [cli, file]).catch((err: { stdout: string }) => ({ stdout: err.stdout }));
      expect(JSON.parse(stdout)).toMatchObject({ valid: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('documents every route Fastify knows, each with its request parameters, a success response and error responses', () => {
    const routes = routesOf(server.app.http).filter((r) => r.method !== 'HEAD' && !r.hidden);
    expect(routes.length).toBeGreaterThan(40);
    const problems: string[] = [];
    for (const route of routes) {
      const where = `${route.method} ${route.url}`;
      const op = doc.paths?.[openApiPath(route.url)]?.[route.method.toLowerCase()];
      if (!op) {
        problems.push(`${where}: missing from /openapi.json (give the route a schema in src/<area>/<area>.contract.ts)`);
        continue;
      }
      const statuses = Object.keys(op.responses ?? {});
      if (!statuses.some((s) => /^2/.test(s)) && !statuses.includes('405')) problems.push(`${where}: no success response`);
      if (!statuses.some((s) => /^[45]/.test(s))) problems.push(`${where}: no error response`);
      for (const name of route.url.match(/:([A-Za-z0-9_]+)/g) ?? [])
        if (!(op.parameters ?? []).some((p: { in: string; name: string }) => p.in === 'path' && p.name === name.slice(1)))
          problems.push(`${where}: path parameter ${name} undocumented`);
      if (
        ['POST', 'PUT', 'PATCH'].includes(route.method) &&
        !op.requestBody &&
        ![
          '/api/blueprints/:id/fork',
          '/api/blueprints/:id/star',
          '/api/blueprints/:id/subscription',
          '/api/tools/operations/:operationId/cancel',
          '/api/inbox/:deliveryId/read',
          '/api/blueprints/:id/proposals/:number/close',
          '/api/blueprints/:id/proposals/:number/reopen',
        ].includes(route.url)
      )
        problems.push(`${where}: request body undocumented`);
    }
    expect(problems).toEqual([]);
  });

  it('documents the shared error body for the errors every route can give', () => {
    const op = doc.paths['/api/blueprints/{id}'].get;
    for (const status of ['400', '401', '404', '429', '500']) {
      const schema = op.responses[status].content['application/json'].schema;
      expect(schema.properties.error.properties.code.enum).toEqual(expect.arrayContaining([...DOCUMENTED_ERROR_CODES]));
    }
  });
});

describe('GET /docs', () => {
  it('renders Swagger UI whose every asset is served by this server (no CDN, no other host)', async () => {
    const { pages, external } = await fetchAll(server.url, '/docs');
    expect(external).toEqual([]);
    expect(pages.length).toBeGreaterThan(3);
    for (const p of pages) expect({ url: p.url, status: p.status }).toEqual({ url: p.url, status: 200 });
    const html = pages[0]!.text;
    expect(html).toContain('swagger');
    expect(assetUrlsOf(html, pages[0]!.url).some((u) => u.endsWith('.js'))).toBe(true);
  });
});

describe('the response check (test mode)', () => {
  it('turns an answer that does not match its schema into a loud 500, so the document cannot lie', async () => {
    const app = Fastify();
    // As in the server, a service-checked body is not validated by the route (here nothing is).
    app.setValidatorCompiler(() => () => true);
    await registerOpenApi(app, { checkResponses: true });
    const schema = { response: { 200: obj({ a: str }) } };
    app.get('/honest', { schema }, async () => ({ a: 'x' }));
    app.get('/extra-field', { schema }, async () => ({ a: 'x', b: 1 }));
    app.get('/undocumented-status', { schema }, async (_req, reply) => reply.code(418 as 200).send({ a: 'x' }));
    // The service accepts any body here; its documentation claims `{a: string}` only.
    app.post('/too-strict-body-doc', { schema: { ...schema, body: serviceChecked(obj({ a: str })) } }, async () => ({ a: 'x' }));
    const original = console.error;
    console.error = () => undefined;
    try {
      const base = await app.listen({ port: 0, host: '127.0.0.1' });
      const get = async (path: string) => {
        const res = await fetch(base + path);
        return { status: res.status, body: (await res.json()) as { error: { message: string } } };
      };
      expect((await get('/honest')).status).toBe(200);
      const extra = await get('/extra-field');
      expect(extra.status).toBe(500);
      expect(extra.body.error.message).toMatch(/does not match its schema: GET \/extra-field -> 200/);
      const teapot = await get('/undocumented-status');
      expect(teapot.status).toBe(500);
      expect(teapot.body.error.message).toMatch(/status code is not documented/);
      const post = (body: unknown) =>
        fetch(base + '/too-strict-body-doc', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect((await post({ a: 'fine' })).status).toBe(200);
      const lying = await post({ b: 1 });
      expect(lying.status).toBe(500);
      expect(((await lying.json()) as { error: { message: string } }).error.message).toMatch(
        /request body: accepted, but not valid against its documented schema/,
      );
    } finally {
      console.error = original;
      await app.close();
    }
  });
});
