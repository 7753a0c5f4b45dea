/**
 * The peers of bench/peer: PostGraphile 4.14 (its CLI) and PostGraphile 5 (Grafast, the Amber preset),
 * each installed into its own temporary folder with `npm install --prefix` (neither is a project
 * dependency) and started as a child process on the bench's database, with NODE_ENV=production.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, sleep } from './harness';

export const POSTGRAPHILE_V4 = '4.14.1';
export const POSTGRAPHILE_V5 = '5.1.5';
const HOST = '127.0.0.1';

/** `postgraphile@version` in its own folder (reused when already there); returns the folder. */
function install(version: string, envDir: string | undefined): string {
  const dir = envDir ?? path.join(os.tmpdir(), `bw-postgraphile-${version}`);
  if (!existsSync(path.join(dir, 'node_modules', 'postgraphile', 'package.json'))) {
    console.log(`installing postgraphile@${version} into ${dir} ...`);
    // --prefer-offline: from npm's cache when it holds the packages (no registry needed once installed anywhere).
    execFileSync('npm', ['install', '--prefix', dir, '--prefer-offline', '--no-audit', '--no-fund', '--no-save', `postgraphile@${version}`], {
      stdio: 'ignore',
    });
  }
  return dir;
}

/**
 * PostGraphile 5 declares Node >= 22; on Node 20 its executor calls `Promise.withResolvers` (Node 22) and
 * every query fails. This is loaded with `--require` before it (STACK.md).
 */
const POLYFILL = `if (typeof Promise.withResolvers !== 'function') {
  Promise.withResolvers = function withResolvers() {
    let resolve, reject;
    const promise = new this((res, rej) => { resolve = res; reject = rej; });
    return { promise, resolve, reject };
  };
}
`;

/**
 * PostGraphile 5 as its documentation serves it on Node: the Amber preset, grafserv on node:http. Without
 * mutations (like the v4 CLI's --disable-default-mutations). `PgIndexBehaviorsPlugin` is off: it hides a
 * backward relation whose only index is partial, as `blueprint_forked_from_index` is, and the bench's
 * tables stay exactly as our migrations make them.
 */
const SERVE_V5 = `const { createServer } = require('node:http');
const { postgraphile } = require('postgraphile');
const { PostGraphileAmberPreset } = require('postgraphile/presets/amber');
const { makePgService } = require('postgraphile/adaptors/pg');
const { grafserv } = require('postgraphile/grafserv/node');
const [connectionString, port, host] = process.argv.slice(2);
const preset = {
  extends: [PostGraphileAmberPreset],
  disablePlugins: ['PgIndexBehaviorsPlugin', 'PgMutationCreatePlugin', 'PgMutationUpdateDeletePlugin', 'PgMutationPayloadEdgePlugin'],
  pgServices: [makePgService({ connectionString, schemas: ['public'] })],
  grafserv: { port: Number(port), host, graphiql: false, watch: false },
  grafast: { explain: false },
};
const serv = postgraphile(preset).createServ(grafserv);
const server = createServer();
serv.addTo(server).then(() => server.listen(Number(port), host), (err) => { console.error(err); process.exit(1); });
`;

export interface Peer {
  url: string;
  child: ChildProcess;
}

async function waitFor(url: string, what: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{__typename}"}' });
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  throw new Error(`${what} did not start`);
}

/** Installs both peers (before the database exists, so a slow install does not age the bench's rows). */
export function installPeers(): { v4: string; v5: string } {
  const v4 = install(POSTGRAPHILE_V4, process.env.POSTGRAPHILE_DIR);
  const v5 = install(POSTGRAPHILE_V5, process.env.POSTGRAPHILE5_DIR);
  writeFileSync(path.join(v5, 'polyfill.js'), POLYFILL);
  writeFileSync(path.join(v5, 'serve.js'), SERVE_V5);
  return { v4, v5 };
}

export async function startV4(dir: string, databaseUrl: string): Promise<Peer> {
  const port = await freePort();
  const cli = path.join(dir, 'node_modules', 'postgraphile', 'cli.js');
  const args = ['-c', databaseUrl, '-s', 'public', '--host', HOST, '--port', String(port), '--disable-default-mutations', '--disable-query-log'];
  const child = spawn(process.execPath, [cli, ...args, '--no-setof-functions-contain-nulls'], {
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://${HOST}:${port}/graphql`;
  await waitFor(url, 'PostGraphile 4', child);
  return { url, child };
}

export async function startV5(dir: string, databaseUrl: string): Promise<Peer> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--require', path.join(dir, 'polyfill.js'), path.join(dir, 'serve.js'), databaseUrl, String(port), HOST], {
    cwd: dir,
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://${HOST}:${port}/graphql`;
  await waitFor(url, 'PostGraphile 5', child);
  return { url, child };
}
