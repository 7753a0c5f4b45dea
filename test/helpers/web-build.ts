import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from './build';

const webDir = path.join(projectRoot, 'web');
const builtIndex = path.join(webDir, 'dist', 'index.html');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'generated') continue;
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

function isFresh(): boolean {
  if (!existsSync(builtIndex)) return false;
  const sources = Math.max(newestMtime(webDir), ...['schema.graphql', 'codegen.yml', 'package.json'].map((f) => statSync(path.join(projectRoot, f)).mtimeMs));
  return statSync(builtIndex).mtimeMs > sources;
}

function lockOwnerAlive(lockDir: string): boolean {
  try {
    process.kill(Number(readFileSync(path.join(lockDir, 'pid'), 'utf8')), 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Builds the web console (`npm run build:web`: codegen, type check, Vite) into web/dist unless it is newer
 * than every file under web/ and the schema. Test files in parallel workers take turns through a lock
 * folder, so Vite never runs twice at once.
 */
export async function ensureWebBuilt(): Promise<void> {
  const lockDir = path.join(projectRoot, '.data', 'web-build.lock');
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
    if (isFresh()) return;
    await promisify(execFile)('npm', ['run', '--silent', 'build:web'], { cwd: projectRoot, maxBuffer: 16 * 1024 * 1024 });
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}
