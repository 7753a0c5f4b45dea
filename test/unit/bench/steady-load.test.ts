import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { steadyRun } from '../../../bench/steady-load';

/** A local server that answers every request after `delayMs`, noting when each arrived. */
async function server(delayMs: number): Promise<{ url: string; arrivals: number[]; close(): Promise<void> }> {
  const arrivals: number[] = [];
  const s = http.createServer((_req, res) => {
    arrivals.push(performance.now());
    setTimeout(() => res.end('ok'), delayMs);
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/`,
    arrivals,
    close: () => new Promise((resolve) => s.close(() => resolve())),
  };
}

describe("bench:registry's steady load (bench/steady-load.ts)", () => {
  it('spreads the requests over the run instead of sending each second in one burst', async () => {
    const s = await server(1);
    try {
      const start = performance.now();
      const result = await steadyRun({ url: s.url }, 100, 4, 1);
      expect(result.total).toBe(100);
      expect(result.non2xx + result.errors).toBe(0);
      // autocannon's overallRate sent 60-100% of a second's requests in its first 200 ms. Paced, each fifth
      // of the second gets about a fifth of them (a stalled machine may shift some: the bound is loose).
      const fifths = [0, 0, 0, 0, 0];
      for (const t of s.arrivals) fifths[Math.min(4, Math.floor((t - start) / 200))]! += 1;
      expect(Math.max(...fifths)).toBeLessThanOrEqual(50);
      expect(fifths.filter((n) => n > 0)).toHaveLength(5);
    } finally {
      await s.close();
    }
  });

  it('times each request from when it was due, so a queue for a connection counts (no coordinated omission)', async () => {
    // One connection to a server answering in 50 ms serves at most 20 req/s; at 100 req/s for half a
    // second, the last of the 50 requests waits for the 49 before it: about 2 s, where a closed loop
    // (time from the actual send) would say 50 ms.
    const s = await server(50);
    try {
      const result = await steadyRun({ url: s.url }, 100, 1, 0.5);
      expect(result.total).toBe(50);
      expect(result.p50).toBeGreaterThanOrEqual(500);
      expect(result.p99).toBeGreaterThanOrEqual(1500);
    } finally {
      await s.close();
    }
  });
});
