#!/usr/bin/env node
'use strict';
/**
 * Architecture check, run by `npm run check` (`npm run lint`):
 * 1. no import cycles between the folders (areas) of src/: the dependencies between areas run one way;
 * 2. src/platform imports no domain folder (ESLint's no-restricted-imports checks it file by file too);
 * 3. no source file over `maxFileLines` lines in src/ and web/src (generated code excepted): a longer file holds
 *    more than one concept and is split by concept, not by line count.
 * 4. no import of a removed schema vocabulary (`removedModules`): contracts are written in one vocabulary,
 *    src/platform/contract.ts, whichever adapter (REST, MCP, service) reads them.
 * Imports are read with TypeScript's own pre-processor (type-only imports count: they couple areas too).
 * The layering (lower never imports higher): platform < auth < teams < blueprints < lineage, versions,
 * architectures and the rest. `knownFolderEdges` / `knownPlatformImports` below are allow-lists, empty:
 * anything new fails. An entry added there must say why and when it goes, and must
 * be removed once its import is gone (the check fails on an entry that no longer matches, so the list
 * cannot go stale).
 */
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

/** Folder dependencies allowed to close a cycle (`from -> to`). */
const knownFolderEdges = [];

/** Platform files allowed to import a domain folder (`file -> folder`). */
const knownPlatformImports = [];

const root = path.resolve(__dirname, '..');
const src = path.join(root, 'src');

function* tsFiles(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* tsFiles(full);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield full;
  }
}

/** `src/blueprints/x.ts` -> `blueprints`; files directly in src/ are the composition root. */
const areaOf = (file) => {
  const rel = path.relative(src, file).split(path.sep);
  return rel.length === 1 ? '(root)' : rel[0];
};

/** Modules that were removed and must not come back (src-relative, without extension) and what replaced them. */
const removedModules = new Map([
  ['mcp/mcp-schema', 'the MCP schema vocabulary (shape, strOrNull, pageOf): use platform/contract.ts, MCP forms come from platform/mcp-tool.ts'],
  ['platform/response-schemas', 'renamed platform/contract.ts'],
]);
const removedImports = [];

const edges = new Map(); // "from -> to" => example "file imports spec"
const platformImports = new Map(); // "file -> folder" => spec
for (const file of tsFiles(src)) {
  const from = areaOf(file);
  for (const imported of ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true).importedFiles) {
    if (!imported.fileName.startsWith('.')) continue;
    const target = path.resolve(path.dirname(file), imported.fileName);
    if (!target.startsWith(src + path.sep)) continue;
    const removed = removedModules.get(path.relative(src, target).split(path.sep).join('/'));
    if (removed) removedImports.push(`${path.relative(root, file)} imports '${imported.fileName}', a removed module (${removed})`);
    const to = areaOf(target + '.ts');
    if (to === from) continue;
    const key = `${from} -> ${to}`;
    if (!edges.has(key)) edges.set(key, `${path.relative(root, file)} imports '${imported.fileName}'`);
    if (from === 'platform') platformImports.set(`${path.relative(root, file)} -> ${to}`, imported.fileName);
  }
}

// Folder edges that lie on a cycle: both ends in the same strongly connected component (Tarjan).
const graph = new Map();
for (const key of edges.keys()) {
  const [from, to] = key.split(' -> ');
  if (!graph.has(from)) graph.set(from, []);
  if (!graph.has(to)) graph.set(to, []);
  graph.get(from).push(to);
}
const component = new Map();
{
  let index = 0;
  const stack = [];
  const meta = new Map();
  const connect = (v) => {
    meta.set(v, { index, low: index, onStack: true });
    index += 1;
    stack.push(v);
    for (const w of graph.get(v)) {
      if (!meta.has(w)) {
        connect(w);
        meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).low);
      } else if (meta.get(w).onStack) meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).index);
    }
    if (meta.get(v).low === meta.get(v).index) {
      let w;
      do {
        w = stack.pop();
        meta.get(w).onStack = false;
        component.set(w, v);
      } while (w !== v);
    }
  };
  for (const v of graph.keys()) if (!meta.has(v)) connect(v);
}
const cyclic = [...edges.keys()].filter((key) => {
  const [from, to] = key.split(' -> ');
  return component.get(from) === component.get(to);
});

const problems = [];
for (const key of cyclic) if (!knownFolderEdges.includes(key)) problems.push(`import cycle between folders: ${key} (${edges.get(key)}) closes a cycle`);
for (const key of knownFolderEdges)
  if (!cyclic.includes(key)) problems.push(`allow-list entry "${key}" no longer closes a cycle: remove it from scripts/check-architecture.js`);
for (const [key, spec] of platformImports)
  if (!knownPlatformImports.includes(key)) problems.push(`src/platform imports a domain folder: ${key} ('${spec}'); pass collaborators in as options instead`);
for (const key of knownPlatformImports)
  if (!platformImports.has(key)) problems.push(`allow-list entry "${key}" is gone: remove it from scripts/check-architecture.js`);

// Rule 4: the removed vocabularies, in src/ (above) and in the tests and scripts that import src/.
for (const dir of [path.join(root, 'test'), path.join(root, 'bench'), path.join(root, 'scripts')]) {
  if (!fs.existsSync(dir)) continue;
  for (const file of sourceFiles(dir)) {
    for (const imported of ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!imported.fileName.startsWith('.')) continue;
      const target = path.resolve(path.dirname(file), imported.fileName);
      const removed = target.startsWith(src + path.sep) && removedModules.get(path.relative(src, target).split(path.sep).join('/'));
      if (removed) removedImports.push(`${path.relative(root, file)} imports '${imported.fileName}', a removed module (${removed})`);
    }
  }
}
problems.push(...removedImports);

// Rule 3: file length, in src/ and the console's sources (web/src/generated is written by codegen).
const maxFileLines = 400;
function* sourceFiles(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'generated') yield* sourceFiles(full);
    } else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield full;
  }
}
for (const dir of [src, path.join(root, 'web', 'src')]) {
  if (!fs.existsSync(dir)) continue;
  for (const file of sourceFiles(dir)) {
    const lines = fs.readFileSync(file, 'utf8').split('\n').length - 1;
    if (lines > maxFileLines) problems.push(`${path.relative(root, file)} has ${lines} lines (at most ${maxFileLines}): split it by concept`);
  }
}

if (process.argv.includes('--list')) {
  console.log(JSON.stringify({ cyclic: cyclic.sort(), platformImports: [...platformImports.keys()].sort() }, null, 2));
} else if (problems.length > 0) {
  for (const p of problems) console.error(`architecture: ${p}`);
  process.exit(1);
} else {
  console.log(
    `architecture: ${edges.size} folder dependencies, no cycle, no platform -> domain import (${knownFolderEdges.length + knownPlatformImports.length} allowed)`,
  );
}
