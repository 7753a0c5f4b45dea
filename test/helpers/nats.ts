import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, spawnListening } from './process';

/** Where Debian's `nats-server` package puts it (`.ci/run` installs it when missing). */
export const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

/**
 * A `nats-server -js` of the test's own, on a free port with a temporary store. `stop()` and `start()`
 * again keep the port and the store (a restart), `close()` also removes the store.
 */
export class TestNats {
  private child: ChildProcess | null = null;
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
    const args = ['-js', '-a', '127.0.0.1', '-p', String(this.port), '-sd', this.storeDir];
    this.child = (await spawnListening(NATS_SERVER, args, this.port)).child;
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
