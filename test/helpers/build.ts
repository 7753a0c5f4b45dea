import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

/** The checkout the tests run in. */
export const projectRoot = path.resolve(__dirname, '..', '..');
export const distMain = path.join(projectRoot, 'dist', 'src', 'main.js');
export const distAdmin = path.join(projectRoot, 'dist', 'src', 'admin.js');

/** The newest modification time of any file under `dir`, leaving out folders named in `skip`. */
export function newestMtime(dir: string, skip: readonly string[] = []): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (skip.includes(entry.name)) continue;
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full, skip) : statSync(full).mtimeMs);
  }
  return newest;
}

function isFresh(): boolean {
  if (!existsSync(distMain) || !existsSync(distAdmin)) return false;
  const built = Math.min(statSync(distMain).mtimeMs, statSync(distAdmin).mtimeMs);
  const sources = Math.max(
    newestMtime(path.join(projectRoot, 'src')),
    ...['tsconfig.json', 'tsconfig.build.json', 'package.json'].map((f) => statSync(path.join(projectRoot, f)).mtimeMs),
  );
  return built > sources;
}

function lockOwnerAlive(lockDir: string): boolean {
  try {
    const pid = Number(readFileSync(path.join(lockDir, 'pid'), 'utf8'));
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `build` unless `isFresh()` says its output is newer than its sources. Test files in parallel
 * workers take turns through a lock folder (`.data/<lockName>`), so a build never runs twice at once; a
 * lock whose owner died is taken over.
 */
export async function buildOnce(lockName: string, isFresh: () => boolean, build: () => Promise<unknown>): Promise<void> {
  const lockDir = path.join(projectRoot, '.data', lockName);
  mkdirSync(path.dirname(lockDir), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
      break;
    } catch {
      if (existsSync(lockDir) && !lockOwnerAlive(lockDir) && Date.now() - statSync(lockDir).mtimeMs > 2000) rmSync(lockDir, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    if (!isFresh()) await build();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

/** Compiles the server with `tsc -p tsconfig.build.json` into dist/ unless dist/ is newer than every source file. */
export function ensureBuilt(): Promise<void> {
  return buildOnce('build.lock', isFresh, () =>
    promisify(execFile)(process.execPath, [path.join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
      cwd: projectRoot,
      maxBuffer: 16 * 1024 * 1024,
    }),
  );
}
