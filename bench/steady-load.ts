/**
 * Latency at a steady request rate: request `i` is due at `i / rate` seconds after the start, whatever
 * the answers before it did (an open loop), over at most `connections` keep-alive connections. Each
 * latency runs from the request's due time to the end of its answer, so a request that waited for a free
 * connection, or for this process's event loop, counts its wait (no coordinated omission).
 *
 * Why not autocannon's `overallRate`: it gives each connection a budget of requests per second, which the
 * connection spends back to back as soon as the second begins, and then waits for the next second. At
 * 200 req/s over 10 connections every request of a second left within its first 100-200 ms, then none for
 * the rest of it (measured: `0 0 124 50 26 0 0 0 0 0` arrivals per 100 ms against a server answering in
 * 2 ms), so its "steady" p99 was a saturated burst's. wrk2 is the tool made for this, but it is not an npm
 * package; this is the part of it the registry bench needs.
 *
 * It runs in a child process of its own (`steadyLoad`), as wrk2 runs beside the server: in the bench's
 * process, which also holds an app and the seeding's heap, its event loop stalled up to 19 ms during a
 * run, and every request due meanwhile left that much late.
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { latencyAt } from './basics';
import type { LoadResult } from './harness';

export interface SteadyRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** A steady run's result, with the load generator's own event-loop delay meanwhile (its largest, in ms). */
export interface SteadyResult extends LoadResult {
  loopDelayMaxMs: number;
}

export interface SteadyOptions {
  rate: number;
  connections: number;
  seconds: number;
  /** Seconds at the rate first, not measured. */
  warmupSeconds: number;
}

const CHILD_FLAG = '--steady-load-child';

/** `warmupSeconds`, then `seconds` measured, at `rate` over `connections`, in a child process of its own. */
export function steadyLoad(request: SteadyRequest, options: SteadyOptions): Promise<SteadyResult> {
  const child = fork(__filename, [CHILD_FLAG], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise<SteadyResult>((resolve, reject) => {
    child.once('message', (result) => resolve(result as SteadyResult));
    child.once('exit', (code) => reject(new Error(`the steady load generator exited (${code}) without a result`)));
    child.send({ request, options });
  });
}

if (process.argv.includes(CHILD_FLAG))
  process.once('message', async ({ request, options }: { request: SteadyRequest; options: SteadyOptions }) => {
    if (options.warmupSeconds > 0) await steadyRun(request, options.rate, options.connections, options.warmupSeconds);
    const result = await steadyRun(request, options.rate, options.connections, options.seconds);
    process.send!(result, undefined, {}, () => process.exit(0));
  });

/** One run in this process (`steadyLoad` runs it in a child). */
export async function steadyRun(request: SteadyRequest, rate: number, connections: number, seconds: number): Promise<SteadyResult> {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const url = new URL(request.url);
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  const send = (due: number) =>
    new Promise<void>((resolve) => {
      const req = http.request(url, { agent, method: request.method ?? 'GET', headers: request.headers }, (res) => {
        if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) non2xx += 1;
        res.resume(); // read the answer to its end
        res.on('end', () => {
          latencies.push(performance.now() - due);
          resolve();
        });
        res.on('error', () => {
          errors += 1;
          resolve();
        });
      });
      req.on('error', () => {
        errors += 1;
        resolve();
      });
      req.end(request.body);
    });
  const interval = 1000 / rate;
  const count = Math.round(rate * seconds);
  const start = performance.now();
  const sent: Array<Promise<void>> = [];
  for (let i = 0; i < count; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait)); // never early: a latency counts from `due`
    sent.push(send(due));
  }
  await Promise.all(sent);
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  delay.disable();
  latencies.sort((a, b) => a - b);
  return {
    rps: latencies.length / elapsed,
    p50: latencyAt(latencies, 0.5),
    p99: latencyAt(latencies, 0.99),
    total: latencies.length,
    non2xx,
    errors,
    loopDelayMaxMs: delay.max / 1e6,
  };
}
