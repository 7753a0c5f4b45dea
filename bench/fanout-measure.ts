/**
 * What bench/fanout.ts and its floors (bench/fanout-floor.ts) share: the run's settings, the probes of a
 * measured child (bench/memory-probe.ts), one open side of a size (`Side`) and how the sides' sends
 * alternate and are pooled into results (`interleave`).
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { childNodeFlags, percentile, sleep } from './basics';

/**
 * Measured sends per transport and size (BENCH_SENDS, default 5). One event's p99 swings by 2x from send to
 * send on a shared machine; the table pools the deliveries of all sends, and the notes show each send's p99.
 */
export const SENDS = Math.max(1, Number(process.env.BENCH_SENDS ?? 5));
export const HOST = '127.0.0.1';
export const RUN_LIMIT_MS = 15 * 60_000;
export const DELIVERY_WAIT_MS = 30_000;
/** Pause after each measured send, so that one send's tail does not overlap the next. */
export const SETTLE_MS = 300;

/** The system's monotonic clock in ms (`CLOCK_MONOTONIC`): one clock for every process of the run. */
export function clockMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Every child process of the run, stopped at its end (bench/fanout.ts `cleanup`). */
export const children: ChildProcess[] = [];

export interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
}

/** Node flags for a measured child: bench/memory-probe answers `memory` (after a full GC) and `cpu` requests. */
export const probeArgs = ['--expose-gc', '-r', path.join(__dirname, 'memory-probe.js'), ...childNodeFlags()];

/** One answer of bench/memory-probe.ts from a child (`memory`: after a full GC; `cpu`: its CPU time). */
function probe<T>(child: ChildProcess, type: 'memory' | 'cpu'): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${type} probe did not answer`)), 10_000);
    const onMessage = (m: { type?: string } & T) => {
      if (m.type !== type) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(m);
    };
    child.on('message', onMessage);
    child.send({ type });
  });
}

/** A child's memory after a full garbage collection (see bench/memory-probe.ts). */
export async function memoryOf(child: ChildProcess): Promise<Memory> {
  const m = await probe<Memory>(child, 'memory');
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external };
}

/** CPU time, µs: in the process's own code and libraries (user), in the kernel for it (system). */
export interface Cpu {
  user: number;
  system: number;
}

/**
 * A child's CPU time so far, from `process.cpuUsage()` in the child: not `cpuMsOf` (bench/basics.ts),
 * whose /proc clock ticks are 10 ms, a few µs per subscriber over five sends to 2,000.
 */
async function cpuOf(child: ChildProcess): Promise<Cpu> {
  const { user, system } = await probe<Cpu>(child, 'cpu');
  return { user, system };
}

/**
 * The write-like system calls a process made so far (`syscw` of /proc/<pid>/io; NaN where there is none):
 * on this machine a loopback write costs tens of µs, so how many a delivery takes explains much of its CPU.
 */
function writeCallsOf(pid: number | undefined): number {
  try {
    return Number(/^syscw: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

/** What `child` spent while `work` ran: its CPU time and its write system calls, beside `work`'s answer. */
export async function usageDuring<R>(child: ChildProcess, work: () => Promise<R>): Promise<{ result: R; cpu: Cpu; writes: number }> {
  const cpuBefore = await cpuOf(child);
  const writesBefore = writeCallsOf(child.pid);
  const result = await work();
  const writes = writeCallsOf(child.pid) - writesBefore;
  const cpuAfter = await cpuOf(child);
  return { result, cpu: { user: cpuAfter.user - cpuBefore.user, system: cpuAfter.system - cpuBefore.system }, writes };
}

/**
 * Retained memory per subscriber: JS heap + external (native buffers) after a full GC. RSS is not used:
 * a process that already grew during setup reuses those pages, so its RSS growth says little.
 */
export function perSubscriber(before: Memory, after: Memory, n: number): number {
  return (after.heapUsed + after.external - before.heapUsed - before.external) / n;
}

export function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

export interface RunResult {
  n: number;
  transport: string;
  /** Deliveries of the send that reached the fewest subscribers. */
  delivered: number;
  /** Every send's latencies, pooled and sorted. */
  latencies: number[];
  /** Each send's p99, in send order. */
  sendP99s: number[];
  /** Bytes retained per subscriber. */
  memory: number;
  /**
   * The server process's CPU time per subscriber and send, µs, from just before each measured send until
   * its last delivery (PostgreSQL's is not in it): steadier than the latencies on a shared machine, and
   * what they are mostly made of.
   */
  serverCpu: number;
  /** The part of `serverCpu` spent in the kernel (system time). */
  serverSystemCpu: number;
  /** The server process's write system calls per subscriber and send, over the same windows. */
  serverWrites: number;
  note: string;
}

/** The deliveries of several sends, pooled: what one `RunResult` reports. */
export class SendStats {
  readonly latencies: number[] = [];
  readonly sendP99s: number[] = [];
  delivered: number;

  constructor(n: number) {
    this.delivered = n;
  }

  /** One send's latencies, sorted. */
  add(latencies: number[]): void {
    this.delivered = Math.min(this.delivered, latencies.length);
    this.sendP99s.push(percentile(latencies, 99));
    this.latencies.push(...latencies);
  }

  result(): Pick<RunResult, 'delivered' | 'latencies' | 'sendP99s'> {
    return { delivered: this.delivered, latencies: [...this.latencies].sort((a, b) => a - b), sendP99s: this.sendP99s };
  }
}

/** Waits until `count()` reaches `n` or the deadline passes. */
export async function waitFor(count: () => number, n: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (count() < n && Date.now() < deadline) await sleep(5);
}

/** One transport at one size with its N subscribers connected and warmed up (two unmeasured sends). */
export interface Side {
  n: number;
  transport: string;
  /** Bytes retained per subscriber. */
  memory: number;
  /**
   * One measured send: each delivery's latency in ms from just before the send, sorted, and what the
   * server spent on it (`usageDuring`).
   */
  send(k: number): Promise<{ latencies: number[]; cpu: Cpu; writes: number }>;
  /** What each send did, for the notes under the table. */
  note(): string;
  close(): Promise<void>;
}

/**
 * SENDS sends per side, alternating between the sides in the order A B C, C B A, A B C, ... so that a
 * machine that slows down or speeds up during the run (this one's load swings by 2x within minutes)
 * weighs on every side alike, and every ratio compares sends made moments apart.
 */
export async function interleave(sides: Side[]): Promise<RunResult[]> {
  const stats = sides.map((side) => new SendStats(side.n));
  const cpu = sides.map(() => ({ user: 0, system: 0 }));
  const writes = sides.map(() => 0);
  for (let k = 0; k < SENDS; k++) {
    const order = k % 2 === 0 ? sides.map((_, i) => i) : sides.map((_, i) => sides.length - 1 - i);
    for (const i of order) {
      const sent = await sides[i]!.send(k);
      stats[i]!.add(sent.latencies);
      cpu[i]!.user += sent.cpu.user;
      cpu[i]!.system += sent.cpu.system;
      writes[i]! += sent.writes;
      await sleep(SETTLE_MS);
    }
  }
  return sides.map((side, i) => ({
    n: side.n,
    transport: side.transport,
    ...stats[i]!.result(),
    memory: side.memory,
    serverCpu: (cpu[i]!.user + cpu[i]!.system) / SENDS / side.n,
    serverSystemCpu: cpu[i]!.system / SENDS / side.n,
    serverWrites: writes[i]! / SENDS / side.n,
    note: `${SENDS} sends, alternating with the other transports: ${side.note()}`,
  }));
}
