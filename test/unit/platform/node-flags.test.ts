import { readFileSync } from 'node:fs';
import path from 'node:path';
import { serverNodeFlags } from '../../../src/platform/node-flags';
import { childNodeFlags } from '../../../bench/basics';

/** `npm start` and the benches run the server with the same Node flags (src/platform/node-flags.ts). */
it('starts the server with the same Node flags in `npm start` as in the benches', () => {
  const start: string = JSON.parse(readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')).scripts.start;
  const flags = /exec node (.*?)dist\/src\/main\.js/.exec(start)?.[1]?.trim().split(/\s+/).filter(Boolean) ?? null;
  expect(flags).toEqual([...serverNodeFlags]);
  const saved = { prof: process.env.BENCH_CPU_PROF, extra: process.env.BENCH_NODE_FLAGS };
  delete process.env.BENCH_CPU_PROF;
  delete process.env.BENCH_NODE_FLAGS;
  try {
    expect(childNodeFlags()).toEqual([...serverNodeFlags]);
  } finally {
    if (saved.prof !== undefined) process.env.BENCH_CPU_PROF = saved.prof;
    if (saved.extra !== undefined) process.env.BENCH_NODE_FLAGS = saved.extra;
  }
});
