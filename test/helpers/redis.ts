import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from './process';

/** Where Debian's `redis-server` package puts it. */
export const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

/**
 * A `redis-server` of the test's own, on a free port and with no persistence, which the test can stop and
 * start again on the same port (an outage), or freeze with SIGSTOP and thaw with SIGCONT (a Redis that
 * keeps its connections open but answers nothing).
 */
export class TestRedis {
  private child: ChildProcess | null = null;
  private output = '';
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
    const child = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (c) => (this.output += String(c)));
    child.stderr!.on('data', (c) => (this.output += String(c)));
    this.child = child;
    const deadline = Date.now() + 15_000;
    while (!(await this.accepts())) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`redis-server did not start:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private accepts(): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = connect(this.port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
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
