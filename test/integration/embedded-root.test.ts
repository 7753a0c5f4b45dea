import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cp, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { ROOT_RUNTIME_DIR } from '../../src/platform/sql/embedded-postgres-files';
import { ensureBuilt, projectRoot } from '../helpers/build';
import { exitWithin, freePort, isAlive, type ServerProcess } from '../helpers/process';

/**
 * A fresh copy of the project, started as root from a 0700 folder (like /root) with no
 * DATABASE_URL, boots its embedded PostgreSQL and answers /healthz. The `postgres` OS user cannot reach
 * that folder, so the cluster and a copy of the binaries go under ROOT_RUNTIME_DIR; the superuser
 * password is random and kept 0600 in the data folder; nothing with a password is left in /tmp.
 * Only meaningful as root (as a normal user PostgreSQL runs as that user, as process.test.ts shows).
 */
jest.setTimeout(300_000);

const asRoot = process.getuid?.() === 0 ? it : it.skip;
const run = promisify(execFile);

let home: string | undefined;
let server: ServerProcess | undefined;
let clusterHome: string | undefined;

afterAll(async () => {
  if (server && server.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill('SIGTERM');
    await exitWithin(server, 30_000).catch(() => server!.child.kill('SIGKILL'));
  }
  // A postmaster a failed run left behind (SIGINT: fast shutdown).
  const pidFile = clusterHome && path.join(clusterHome, 'pg', 'postmaster.pid');
  if (pidFile && existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    if (isAlive(pid)) process.kill(pid, 'SIGINT');
    for (let waited = 0; waited < 10_000 && isAlive(pid); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (home) rmSync(home, { recursive: true, force: true });
  if (clusterHome) rmSync(clusterHome, { recursive: true, force: true });
});

/** A copy of the working tree as a clone would have it (tracked files), plus dependencies and the build. */
async function freshCopy(into: string): Promise<void> {
  const { stdout } = await run('git', ['ls-files', '-z'], { cwd: projectRoot, maxBuffer: 64 * 1024 * 1024 });
  for (const file of stdout.split('\0').filter(Boolean)) {
    await mkdir(path.dirname(path.join(into, file)), { recursive: true });
    await cp(path.join(projectRoot, file), path.join(into, file));
  }
  // Hard links: the same files as `npm ci` would put there, physically inside the 0700 folder.
  await run('cp', ['-al', path.join(projectRoot, 'node_modules'), path.join(into, 'node_modules')]);
  await cp(path.join(projectRoot, 'dist'), path.join(into, 'dist'), { recursive: true });
}

const tmpSecrets = () => readdirSync(os.tmpdir()).filter((name) => name.startsWith('pg-password-'));

asRoot('boots as root from a 0700 folder without DATABASE_URL, and keeps the superuser password private', async () => {
  await ensureBuilt();
  home = mkdtempSync(path.join(os.tmpdir(), 'bw-root-home-'));
  expect(statSync(home).mode & 0o777).toBe(0o700);
  const project = path.join(home, 'project');
  await freshCopy(project);
  const secretsBefore = tmpSecrets();

  const port = await freePort();
  const pgPort = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', EMBEDDED_PG_PORT: String(pgPort) };
  delete env.DATABASE_URL;
  delete env.DATA_DIR;
  const child = spawn(process.execPath, ['dist/src/main.js'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c) => (output += String(c)));
  child.stderr!.on('data', (c) => (output += String(c)));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  server = { child, url: `http://127.0.0.1:${port}`, output: () => output, exited };

  const dataDir = path.join(project, '.data');
  clusterHome = path.join(ROOT_RUNTIME_DIR, createHash('sha256').update(dataDir).digest('hex').slice(0, 16));
  let healthy = false;
  for (const deadline = Date.now() + 240_000; !healthy && Date.now() < deadline && child.exitCode === null;) {
    healthy = (await fetch(`${server.url}/healthz`).catch(() => null))?.status === 200;
    if (!healthy) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  if (!healthy) throw new Error(`not healthy:\n${output}`);

  // The cluster lives where the postgres user can reach it, owned by that user.
  expect(output).toContain(`cluster lives in ${path.join(clusterHome, 'pg')}`);
  expect(output).toMatch(/using a copy of the PostgreSQL binaries the "postgres" user can reach/);
  const postgresUid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  expect(statSync(path.join(clusterHome, 'pg')).uid).toBe(postgresUid);

  // A random password, 0600 in the data folder; the old fixed one does not work.
  const passwordFile = path.join(dataDir, 'embedded-pg.password');
  expect(statSync(passwordFile).mode & 0o777).toBe(0o600);
  const password = readFileSync(passwordFile, 'utf8').trim();
  expect(password.length).toBeGreaterThanOrEqual(24);
  const connect = async (pw: string) => {
    const client = new Client({ host: '127.0.0.1', port: pgPort, user: 'postgres', password: pw, database: 'postgres' });
    try {
      await client.connect();
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  expect(await connect(password)).toBe(true);
  expect(await connect('postgres')).toBe(false);

  // No initdb password file was left in (or written to) /tmp, and no Unix socket of ours is there.
  expect(tmpSecrets()).toEqual(secretsBefore);
  expect(readdirSync(os.tmpdir()).filter((n) => n === `.s.PGSQL.${pgPort}`)).toEqual([]);

  const postmaster = Number(readFileSync(path.join(clusterHome, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  child.kill('SIGTERM');
  expect(await exitWithin(server, 30_000)).toBe(0);
  for (let waited = 0; waited < 10_000 && isAlive(postmaster); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(isAlive(postmaster)).toBe(false);
});
