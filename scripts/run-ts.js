#!/usr/bin/env node
'use strict';
/**
 * Runs a TypeScript entry point of this repository without a build: each `.ts` file is transpiled on
 * require with TypeScript's `transpileModule` (per file, no type check; the same mode as ts-jest with
 * `isolatedModules`, decorators and their metadata included). `npm run check` is where types are checked.
 * Usage: node scripts/run-ts.js src/admin.ts [args...]
 */
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const root = path.resolve(__dirname, '..');
const { config, error } = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
const compilerOptions = {
  ...ts.convertCompilerOptionsFromJson(config.compilerOptions, root).options,
  module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.Node10,
  sourceMap: false,
  inlineSourceMap: true,
};

require.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), { compilerOptions, fileName: filename });
  module._compile(outputText, filename);
};

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node scripts/run-ts.js <entry.ts> [args...]');
  process.exit(2);
}
process.argv = [process.argv[0], path.resolve(entry), ...args];
require(path.resolve(entry));
