import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildOnce, newestMtime, projectRoot } from './build';

const webDir = path.join(projectRoot, 'web');
const builtIndex = path.join(webDir, 'dist', 'index.html');

function isFresh(): boolean {
  if (!existsSync(builtIndex)) return false;
  const sources = Math.max(
    newestMtime(webDir, ['dist', 'generated']),
    ...['schema.graphql', 'codegen.yml', 'package.json'].map((f) => statSync(path.join(projectRoot, f)).mtimeMs),
  );
  return statSync(builtIndex).mtimeMs > sources;
}

/**
 * Builds the web console (`npm run build:web`: codegen, type check, Vite) into web/dist unless it is newer
 * than every file under web/ and the schema; one worker at a time (see `buildOnce`).
 */
export function ensureWebBuilt(): Promise<void> {
  return buildOnce('web-build.lock', isFresh, () =>
    promisify(execFile)('npm', ['run', '--silent', 'build:web'], { cwd: projectRoot, maxBuffer: 16 * 1024 * 1024 }),
  );
}
