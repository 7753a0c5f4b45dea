import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './process';

/** Where Debian's `nats-server` package puts it (`.ci/run` installs it when missing). */
export const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

/**
 * A `nats-server -js` of the test's own, on a free port with a temporary store. `stop()` and `start()`
 * again keep the port and the store (a restart), `close()` also removes the store.
 */
export class TestNats {
  private child: ChildProcess | null = null;
  private output = '';
  readonly storeDir = mkdtempSync(path.join(tmpdir(), 'bw-nats-'));
  private constructor(readonly port: number) {}

  static async start(): Promise<TestNats> {
    const nats = new TestNats(await freePort());
    await nats.start();
    return nats;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(NATS_SERVER, ['-js', '-a', '127.0.0.1', '-p', String(this.port), '-sd', this.storeDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (c) => (this.output += String(c)));
    child.stderr!.on('data', (c) => (this.output += String(c)));
    this.child = child;
    const deadline = Date.now() + 15_000;
    while (!(await this.accepts())) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`nats-server did not start:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
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

  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and waits for it to exit. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.storeDir, { recursive: true, force: true });
  }
}
