#!/usr/bin/env node
// `npm run admin -- <command>`: runs the compiled CLI, compiling first only when a source is newer than
// the build (so an operator's repeated calls cost a node start, not a TypeScript compile each).
'use strict';
const { execFileSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const built = path.join(root, 'dist', 'src', 'admin.js');

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return latest;
}

const sources = Math.max(newest(path.join(root, 'src')), ...['tsconfig.json', 'tsconfig.build.json', 'package.json'].map((f) => statSync(path.join(root, f)).mtimeMs));
if (!existsSync(built) || statSync(built).mtimeMs < sources) {
  console.error('admin: compiling (sources changed since the last build)');
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
}
require(built);
