/**
 * What every bench needs and nothing of the app: a free port, a measured child's Node flags, a pause, a
 * bounded pool, percentiles, and a process's CPU time. bench/harness.ts re-exports these beside its
 * app-booting helpers; benches that run the server only as child processes (bench/scale, bench/fanout)
 * import them from here, without loading the app into the load generator.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { serverNodeFlags } from '../src/platform/node-flags';

/**
 * A TCP port on 127.0.0.1 nobody listens on right now (the OS picks it; released at once). The tests'
 * helpers use it too (test/helpers/process.ts re-exports it).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Node flags for a server child a bench measures: first the flags `npm start` runs the server with
 * (`serverNodeFlags`; a floor's own server child gets them too, so both sides run alike), then
 * `BENCH_CPU_PROF=<dir>` writes its CPU profile there (under `subdir` when given) when it stops, and
 * `BENCH_NODE_FLAGS` adds flags of its own (e.g. `--trace-gc`).
 */
export function childNodeFlags(subdir?: string): string[] {
  const profiles = process.env.BENCH_CPU_PROF;
  return [
    ...serverNodeFlags,
    ...(profiles ? ['--cpu-prof', `--cpu-prof-dir=${subdir ? path.join(profiles, subdir) : profiles}`] : []),
    ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
  ];
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `fn` over `items` with at most `limit` running at once; the answers in the items' order. */
export async function pool<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

/**
 * The latency at quantile `q` (0..1) of ascending `sorted`, in whole ms, the way the load floors and the
 * steady load report it (index `floor(q * n)`; 0 when empty). Not `percentile`'s nearest rank: the printed
 * figures of those benches keep their definition.
 */
export function latencyAt(sorted: number[], q: number): number {
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
}

/** The `p`th percentile of ascending `sorted` (nearest rank); NaN when empty. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** CPU time (user + system, ms) in a `/proc/<pid>/stat` line (Linux, 100 clock ticks a second). */
export function cpuMsOfStat(stat: string): number {
  // After the command name (which may hold spaces and parentheses): utime is field 14, stime field 15.
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/**
 * CPU time (user + system, ms) a process has used so far, from /proc (Linux; NaN elsewhere). Per request,
 * it says what a server costs the machine, which a shared machine's req/s says only through its queueing.
 */
export function cpuMsOf(pid: number | undefined): number {
  try {
    return cpuMsOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return NaN;
  }
}

/**
 * The CPU time (ms) each PostgreSQL and nats-server process has used so far, by pid: a `helperCpuMsSince`
 * start. A PostgreSQL backend also names its database (from its process title, `postgres: [<cluster>: ]<user>
 * <database> <client> <state>`); the server's own processes (checkpointer, WAL writer...) name none.
 */
export type HelperCpu = Map<string, { kind: 'postgres' | 'nats'; ms: number; database?: string }>;

/** A PostgreSQL backend's database, from its process title; undefined for the server's own processes. */
export function backendDatabase(title: string): string | undefined {
  return /^postgres: (?:[^\s:]+: )?\S+ (\S+) (?:[\d.:a-f]+\(\d+\)|\[local\])/.exec(title)?.[1];
}

/** Every PostgreSQL and nats-server process's CPU time so far (this machine runs nothing else of either). */
export function helperCpu(): HelperCpu {
  const out: HelperCpu = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let stat: string;
    let title = '';
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.includes('(postgres)')) title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    } catch {
      continue;
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const kind = name === 'postgres' ? 'postgres' : name === 'nats-server' ? 'nats' : null;
    if (kind) out.set(pid, { kind, ms: cpuMsOfStat(stat), database: kind === 'postgres' ? backendDatabase(title) : undefined });
  }
  return out;
}

/**
 * CPU time (ms) the processes the servers lean on used since `start`: each process's own difference, so a
 * backend that exits (an idle pool connection closed) does not take its whole history out of the sum, as a
 * difference of two totals did. What a process used between `start` and its exit is not counted; one that
 * started after `start` counts whole. `byDatabase`: the PostgreSQL backends' share, by their database.
 */
export function helperCpuMsSince(start: HelperCpu): { postgres: number; nats: number; byDatabase: Map<string, number> } {
  const out = { postgres: 0, nats: 0, byDatabase: new Map<string, number>() };
  for (const [pid, now] of helperCpu()) {
    const ms = now.ms - (start.get(pid)?.ms ?? 0);
    out[now.kind] += ms;
    if (now.database) out.byDatabase.set(now.database, (out.byDatabase.get(now.database) ?? 0) + ms);
  }
  return out;
}
