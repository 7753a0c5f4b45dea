import type { ChildProcess } from 'node:child_process';
import { freePort, spawnListening } from './process';

/** Where Debian's `redis-server` package puts it. */
export const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

/**
 * A `redis-server` of the test's own, on a free port and with no persistence, which the test can stop and
 * start again on the same port (an outage), or freeze with SIGSTOP and thaw with SIGCONT (a Redis that
 * keeps its connections open but answers nothing).
 */
export class TestRedis {
  private child: ChildProcess | null = null;
  private constructor(readonly port: number) {}

  static async start(): Promise<TestRedis> {
    const redis = new TestRedis(await freePort());
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    this.child = (await spawnListening(REDIS_SERVER, args, this.port)).child;
  }

  /** Freezes the process: connections stay open, nothing is answered. */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  thaw(): void {
    this.child?.kill('SIGCONT');
  }

  /** Kills the server (SIGKILL: no goodbye to its clients) and waits for it to exit. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}
