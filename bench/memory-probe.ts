import path from 'node:path';
import { writeHeapSnapshot } from 'node:v8';

/**
 * Preloaded (`node --expose-gc -r`) into the processes bench/fanout.ts measures: on an IPC `memory`
 * request it runs a full garbage collection and answers `process.memoryUsage()`, so memory per
 * subscriber is retained memory, not whatever garbage happened to be around. On a `cpu` request it answers
 * `process.cpuUsage()` (no collection): the bench reads it around its measured sends. With
 * BENCH_HEAP_SNAPSHOT=<dir> it also writes a heap snapshot there at each request (before and after the
 * sockets subscribed), for a comparison in Chrome DevTools.
 */
let snapshots = 0;
process.on('message', (msg: { type?: string }) => {
  if (msg?.type === 'cpu') {
    const cpu = process.cpuUsage();
    process.send?.({ type: 'cpu', user: cpu.user, system: cpu.system });
    return;
  }
  if (msg?.type !== 'memory') return;
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  const dir = process.env.BENCH_HEAP_SNAPSHOT;
  if (dir) writeHeapSnapshot(path.join(dir, `${process.pid}-${snapshots++}.heapsnapshot`));
  process.send?.({ type: 'memory', rss: usage.rss, heapUsed: usage.heapUsed, external: usage.external });
});
