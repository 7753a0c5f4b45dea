/**
 * The server child of `bench:graphql-overhead`: our app (`startApp` with the configuration `npm start`
 * reads from the environment) and, in the same process beside it, the two comparisons on the same schema,
 * resolvers, database and request context:
 *
 * - "plain": graphql-js over `node:http` (`parse`/`validate` cached per document text, like Apollo's
 *   document store, then `execute`), nothing else;
 * - "bare": Fastify + Apollo Server 5 with nothing of ours (no plugins, hooks, limits or logger).
 *
 * The three share one process so that they share one database pool, one set of caches and the same Node
 * flags; the load generator runs in the parent (bench/graphql-overhead.ts), so it shares none of their
 * event loop. Sends `{ ours, plain, bare }` (each a `/graphql` URL) to the parent over IPC once all three
 * listen; closes them and exits on SIGTERM.
 */
import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execute, parse, specifiedRules, validate, type DocumentNode } from 'graphql';
import { ApolloServer } from '@apollo/server';
import { fastifyApolloHandler } from '@as-integrations/fastify';
import Fastify from 'fastify';
import { graphQLSchema, startApp } from '../src/app';
import { loadConfig } from '../src/platform/config';
import type { RequestContext } from '../src/platform/context';
import { createRequestContext } from '../src/platform/http/request-context';

type Deps = Parameters<typeof createRequestContext>[0];

export interface OverheadServers {
  ours: string;
  plain: string;
  bare: string;
}

/** graphql-js over node:http, nothing else: the floor our stack is measured against. */
async function plainServer(deps: Deps): Promise<{ url: string; close(): Promise<void> }> {
  const schema = await graphQLSchema();
  const documents = new Map<string, DocumentNode>();
  const server: Server = createServer((req, res) => {
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
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The stack with nothing of ours: Fastify + Apollo Server 5 (its own graphql-js executor, no plugins, no
 * hooks, no rate limit, no logger) and the same request context. What it costs over plain graphql-js is the
 * libraries' own share, which no change of ours removes; ours over it is what our code adds.
 */
async function bareStack(deps: Deps): Promise<{ url: string; close(): Promise<void> }> {
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

async function main(): Promise<void> {
  const app = await startApp(loadConfig());
  const plain = await plainServer(app.deps);
  const bare = await bareStack(app.deps);
  process.once('SIGTERM', () => {
    void Promise.allSettled([plain.close(), bare.close()])
      .then(() => app.close())
      .finally(() => process.exit(0));
  });
  const urls: OverheadServers = { ours: `${app.url}/graphql`, plain: plain.url, bare: bare.url };
  process.send?.(urls);
}

main().catch((err) => {
  console.error('bench/graphql-overhead-servers failed to start:', err);
  process.exit(1);
});
