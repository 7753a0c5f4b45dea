/**
 * Preloaded (`node --expose-gc -r`) into the processes bench/fanout.ts measures: on an IPC `memory`
 * request it runs a full garbage collection and answers `process.memoryUsage()`, so memory per
 * subscriber is retained memory, not whatever garbage happened to be around.
 */
process.on('message', (msg: { type?: string }) => {
  if (msg?.type !== 'memory') return;
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  process.send?.({ type: 'memory', rss: usage.rss, heapUsed: usage.heapUsed, external: usage.external });
});
