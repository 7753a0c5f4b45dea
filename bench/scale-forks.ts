/**
 * bench:scale's first half: forks per second through one instance while three instances listen, events on
 * against events off (the floor), measured **interleaved** (bench/scale.ts runs it).
 *
 * Both sides run at once, each as three instances on a database of its own (so neither receives the
 * other's events: LISTEN/NOTIFY is per database, and each side has its own NATS stream). The load
 * alternates between them in slices of BENCH_SLICE_MS (1 s) in the order on, off, off, on, on, off...,
 * each slice's forks drained before the next begins. On this shared machine the speed of a core moved by
 * up to 2x between two 10-second runs a minute apart (the same configuration served 83 and 180 forks/s),
 * which no number of sequential runs averages out in minutes; slices a second apart see the same machine.
 * The ratio is of the summed forks over the summed slice time of each side; the spread is that of each
 * group of four slices (on, off, off, on).
 */
import { performance } from 'node:perf_hooks';
import type WebSocket from 'ws';
import { helperCpu, helperCpuMsSince, percentile, pool, sleep } from './basics';
import { countingListener, cpuMs, databaseWork, withPgClient, workPerFork } from './scale-measure';

export type Side = 'on' | 'off';

/** One side: its three instances, its database and what setup made there. */
export interface ForkSide {
  bases: string[];
  pids: number[];
  databaseUrl: string;
  dbName: string;
  owner: string;
  listener: string;
  sourceId: string;
}

export interface SideResult {
  perSecond: number;
  forks: number;
  events: number;
  work: string;
}

export interface InterleavedResult {
  on: SideResult;
  off: SideResult;
  ratio: number;
  /** The ratio of each group of four slices, ascending. */
  groupRatios: number[];
  /** PostgreSQL's own processes (checkpointer, WAL writer...), per fork of both sides. */
  sharedPostgresMsPerFork: number;
  natsMsPerFork: number;
  benchMsPerFork: number;
}

/** The order of slice `i`: on, off, off, on, on, off, off, on... (each pair's first side alternates). */
export function sliceSide(i: number): Side {
  return i % 4 === 0 || i % 4 === 3 ? 'on' : 'off';
}

type Call = (base: string, method: string, url: string, token?: string) => Promise<{ status: number }>;

/** One slice of load: its side, the forks it completed and how long it took (ms). */
interface Slice {
  side: Side;
  forks: number;
  ms: number;
}

/** `side`'s forks in `slices` and its rate over their summed time (forks/s). */
function rateOf(slices: Slice[], side: Side): { forks: number; perSecond: number } {
  let forks = 0;
  let ms = 0;
  for (const s of slices)
    if (s.side === side) {
      forks += s.forks;
      ms += s.ms;
    }
  return { forks, perSecond: forks / (ms / 1000) };
}

export async function interleavedForkRates(
  sides: Record<Side, ForkSide>,
  options: { perInstance: number; concurrency: number; sliceMs: number; slicesPerSide: number; quietMs: number; call: Call },
): Promise<InterleavedResult> {
  const { perInstance, concurrency, sliceMs, slicesPerSide, quietMs, call } = options;
  const events: Record<Side, number> = { on: 0, off: 0 };
  const sockets: WebSocket[] = [];
  for (const side of ['on', 'off'] as const) {
    const s = sides[side];
    sockets.push(
      ...(await pool(
        Array.from({ length: 3 * perInstance }, (_, i) => i),
        20,
        (i) =>
          countingListener(s.bases[i % 3]!, s.listener, 'subscription ($id: ID!) { blueprintActivity(id: $id) { kind } }', { id: s.sourceId }, () => {
            events[side] += 1;
          }),
      )),
    );
  }
  try {
    await sleep(500);
    // This machine's PostgreSQL runs without autovacuum: the outbox rows earlier runs stamped and the
    // relay's partial index over unsent rows keep their dead entries, which every relay pass then walks,
    // more with each run. A deployment's autovacuum keeps them few (the outbox's own thresholds are low,
    // see its migration); vacuuming before each run stands in for it.
    for (const side of ['on', 'off'] as const) await withPgClient(sides[side].databaseUrl, (c) => c.query('vacuum event_outbox'));
    const fork = (side: Side) => call(sides[side].bases[0]!, 'POST', `/api/blueprints/${sides[side].sourceId}/fork`, sides[side].owner);
    // Warm-up, not counted.
    for (let i = 0; i < 10; i++) for (const side of ['on', 'off'] as const) await fork(side);
    await sleep(quietMs);
    const work = { on: await databaseWork(sides.on.databaseUrl), off: await databaseWork(sides.off.databaseUrl) };
    const cpu = { on: cpuMs(sides.on.pids), off: cpuMs(sides.off.pids) };
    const helpers = helperCpu();
    const bench = process.cpuUsage();
    events.on = 0;
    events.off = 0;
    const slices: Slice[] = [];
    for (let i = 0; i < 2 * slicesPerSide; i++) {
      const side = sliceSide(i);
      let done = 0;
      const t0 = performance.now();
      const end = t0 + sliceMs;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (performance.now() < end) if ((await fork(side)).status === 201) done += 1;
        }),
      );
      slices.push({ side, forks: done, ms: performance.now() - t0 });
    }
    await sleep(quietMs);
    const received = { ...events };
    const helpersUsed = helperCpuMsSince(helpers);
    const benchUsed = process.cpuUsage(bench);
    const result = async (side: Side): Promise<SideResult> => {
      const s = sides[side];
      const { forks, perSecond } = rateOf(slices, side);
      const used = cpuMs(s.pids).map((ms, i) => (ms - cpu[side][i]!) / forks);
      const postgres = (helpersUsed.byDatabase.get(s.dbName) ?? 0) / forks;
      return {
        perSecond,
        forks,
        events: received[side],
        work: `${workPerFork(work[side], await databaseWork(s.databaseUrl), forks)}; server CPU ${used.reduce((a, b) => a + b, 0).toFixed(1)} ms per fork (${used
          .map((ms) => ms.toFixed(1))
          .join(' + ')}, instance 0 first); its database's PostgreSQL backends ${postgres.toFixed(1)} ms per fork`,
      };
    };
    const on = await result('on');
    const off = await result('off');
    const groupRatios: number[] = [];
    for (let g = 0; g + 4 <= slices.length; g += 4) {
      const group = slices.slice(g, g + 4);
      groupRatios.push(rateOf(group, 'on').perSecond / rateOf(group, 'off').perSecond);
    }
    groupRatios.sort((a, b) => a - b);
    const total = on.forks + off.forks;
    const attributed = [...helpersUsed.byDatabase.values()].reduce((a, b) => a + b, 0);
    return {
      on,
      off,
      ratio: on.perSecond / off.perSecond,
      groupRatios,
      sharedPostgresMsPerFork: (helpersUsed.postgres - attributed) / total,
      natsMsPerFork: helpersUsed.nats / total,
      benchMsPerFork: (benchUsed.user + benchUsed.system) / 1000 / total,
    };
  } finally {
    for (const socket of sockets) socket.close();
  }
}

/** "0.91x (groups of four slices: 0.78x-1.02x, median 0.90x)". */
export function describeRatio(r: InterleavedResult): string {
  const g = r.groupRatios;
  return `${r.ratio.toFixed(2)}x (${g.length} groups of four slices: ${g[0]?.toFixed(2)}x-${g.at(-1)?.toFixed(2)}x, median ${percentile(g, 50).toFixed(2)}x)`;
}
