/**
 * `npm run bench:graphql-overhead`: what our HTTP GraphQL stack (Fastify + Apollo Server 5 + our plugins:
 * limits, cost, error masking) costs over plain graphql-js on the same schema, resolvers, database and
 * request context, in one run. Both are sent the same bearer token (`blueprint` needs one); ours runs with
 * its default limits.
 *
 * A third server, "bare", is Fastify + Apollo Server with nothing of ours (no plugins, hooks or limits) and
 * the same request context: the libraries' own share of the overhead, beside what our code adds.
 *
 * The plain server is `node:http` + `parse`/`validate` (cached per document text, like Apollo's document
 * store) + `execute` of graphql-js, with the same `createRequestContext` per request. Both run in this
 * process; autocannon alternates between them on two documents: a one-blueprint read (where framework
 * overhead shows most) and the 3-level fork tree (1 + 20 + 400 blueprints). Goal (issue 27): ours >= 0.9x
 * of bare Fastify + Apollo (Apollo stays, so our own code is judged against the bare libraries).
 * Environment: DATABASE_URL (required), BENCH_DURATION (5 s per run), BENCH_CONNECTIONS (10).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execute, parse, specifiedRules, validate, type DocumentNode } from 'graphql';
import { ApolloServer } from '@apollo/server';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import Fastify from 'fastify';
import { graphQLSchema } from '../src/app';
import type { RequestContext } from '../src/platform/context';
import { createRequestContext } from '../src/platform/http/request-context';
import { connections, duration, graphqlLoad, load, row, run, sleep, withBench, type LoadResult } from './harness';

// Like production: no SQL counting scope per request (it turns on promise hooks).
process.env.BENCH_SQL_COUNT ??= '0';

const SMALL = `query One($id: ID!) { blueprint(id: $id) { id name stars forksCount createdAt } }`;
const TREE = `query ForkTree($id: ID!) {
  blueprint(id: $id) { id name
    forks(first: 50) { totalCount edges { node { id name stars
      forks(first: 50) { totalCount edges { node { id name stars
        forks(first: 50) { totalCount } } } } } } } }
}`;

/** graphql-js over node:http, nothing else: the floor our stack is measured against. */
async function plainServer(deps: Parameters<typeof createRequestContext>[0]): Promise<{ url: string; server: Server }> {
  const schema = await graphQLSchema();
  const documents = new Map<string, DocumentNode>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { query: string; variables?: Record<string, unknown> };
        let document = documents.get(body.query);
        if (!document) {
          document = parse(body.query);
          const errors = validate(schema, document, specifiedRules);
          if (errors.length) throw errors[0];
          documents.set(body.query, document);
        }
        const contextValue = await createRequestContext(deps, req.headers.authorization);
        const result = await execute({ schema, document, variableValues: body.variables, contextValue });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(result));
      })().catch((err: unknown) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ errors: [{ message: String(err) }] }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`, server };
}

/**
 * The stack with nothing of ours: Fastify + Apollo Server 5 (its own graphql-js executor, no plugins, no
 * hooks, no rate limit, no logger) and the same request context. What it costs over plain graphql-js is the
 * libraries' own share, which no change of ours removes; ours over it is what our code adds.
 */
async function bareStack(deps: Parameters<typeof createRequestContext>[0]): Promise<{ url: string; close(): Promise<void> }> {
  const schema = await graphQLSchema();
  const apollo = new ApolloServer<RequestContext>({ schema, stringifyResult: (value) => JSON.stringify(value), stopOnTerminationSignals: false });
  await apollo.start();
  const app = Fastify();
  app.post('/graphql', fastifyApolloHandler(apollo, { context: (request) => createRequestContext(deps, request.headers.authorization) }));
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: `${address}/graphql`,
    close: async () => {
      await app.close();
      await apollo.stop();
    },
  };
}

run(() =>
  withBench('bench/graphql-overhead', {}, async ({ app, db, token }) => {
    const owner = (await db.query<{ id: string }>(`insert into principal (id, kind, name) values (gen_random_uuid(), 'user', 'bench') returning id`)).rows[0]!
      .id;
    const root = (
      await db.query<{ id: string }>(
        `insert into blueprint (id, slug, name, visibility, owner_id, plan) values (gen_random_uuid(), 'root', 'Root', 'public', $1, '{"modules":[],"steps":[],"configuration":{},"designSystem":{}}') returning id`,
        [owner],
      )
    ).rows[0]!.id;
    let parents = [root];
    for (let level = 1; level <= 2; level++) {
      const { rows } = await db.query<{ id: string }>(
        `insert into blueprint (id, slug, name, visibility, owner_id, plan, forked_from_id, created_at)
         select gen_random_uuid(), p.slug || '-' || g, 'Fork ' || g, 'public', p.owner_id, p.plan, p.id, clock_timestamp()
           from blueprint p cross join generate_series(1, 20) g where p.id = any($1::uuid[]) returning id`,
        [parents],
      );
      parents = rows.map((r) => r.id);
    }
    await db.query('vacuum analyze');
    const plain = await plainServer(app.deps);
    const bare = await bareStack(app.deps);
    try {
      const ours = `${app.url}/graphql`;
      // Same answers from both, before measuring.
      for (const query of [SMALL, TREE]) {
        const answers = await Promise.all(
          [ours, plain.url, bare.url].map(async (url) =>
            (
              await fetch(url, {
                method: 'POST',
                headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
                body: JSON.stringify({ query, variables: { id: root } }),
              })
            ).json(),
          ),
        );
        if (answers.some((a) => JSON.stringify(a) !== JSON.stringify(answers[0])))
          throw new Error(`the answers differ: ${JSON.stringify(answers).slice(0, 300)}`);
      }
      console.log(
        `autocannon, ${connections} connections, ${duration} s per run, alternating ours / plain graphql-js / bare Fastify + Apollo (same process, schema, resolvers and database)`,
      );
      const widths = [34, 10, 8, 8];
      console.log(row(['run', 'req/s', 'p50 ms', 'p99 ms'], widths));
      // A second of load on each first, as bench/peer does: the first seconds of a fresh process run
      // unoptimised code, and the answer check above is only one request.
      for (const query of [SMALL, TREE])
        for (const url of [ours, plain.url, bare.url]) await load({ ...graphqlLoad(url, query, { id: root }, token), duration: 1 });
      const summary: string[] = [];
      for (const [name, query] of [
        ['one blueprint', SMALL],
        ['fork tree (421 blueprints)', TREE],
      ] as const) {
        const results: Record<'ours' | 'plain' | 'bare', LoadResult[]> = { ours: [], plain: [], bare: [] };
        const urls = { ours, plain: plain.url, bare: bare.url };
        for (let round = 1; round <= 2; round++) {
          for (const target of ['ours', 'plain', 'bare'] as const) {
            const r = await load(graphqlLoad(urls[target], query, { id: root }, token));
            results[target].push(r);
            console.log(row([`${name}: ${target} #${round}`, r.rps.toFixed(0), r.p50, r.p99], widths));
            await sleep(500);
          }
        }
        const avg = (rs: LoadResult[]) => rs.reduce((s, r) => s + r.rps, 0) / rs.length;
        summary.push(
          `${name}: ours ${avg(results.ours).toFixed(0)} req/s, plain graphql-js ${avg(results.plain).toFixed(0)} req/s, ours/plain = ${(avg(results.ours) / avg(results.plain)).toFixed(2)}x`,
          `  bare Fastify + Apollo ${avg(results.bare).toFixed(0)} req/s: bare/plain = ${(avg(results.bare) / avg(results.plain)).toFixed(2)}x (the libraries' own share), ours/bare = ${(avg(results.ours) / avg(results.bare)).toFixed(2)}x (what our code adds; goal >= 0.9)`,
        );
      }
      console.log('');
      for (const line of summary) console.log(line);
    } finally {
      await new Promise((resolve) => plain.server.close(resolve));
      await bare.close();
    }
  }),
);
