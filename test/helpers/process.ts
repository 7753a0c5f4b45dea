import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import path from 'node:path';
import { distMain, projectRoot } from './build';
import { statusOf } from './rest';

/** A TCP port nobody listens on right now: the benches' helper, one owner for both. */
export { freePort } from '../../bench/basics';

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote to stdout and stderr so far (for failure messages). */
  output(): string;
  /** Resolves with the exit code (or the signal name) once the process has exited. */
  exited: Promise<number | string>;
}

/** Spawns `node dist/src/main.js` with `env` added to this process's environment. */
export function spawnServer(port: number, env: Record<string, string | undefined>): ServerProcess {
  const fullEnv: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete fullEnv[key];
  const child = spawn(process.execPath, [distMain], { cwd: projectRoot, env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return { child, url: `http://127.0.0.1:${port}`, output: () => output, exited };
}

/** Polls `GET /healthz` until it answers 200; fails early if the process exits, or after `timeoutMs`. */
export async function waitForHealthy(server: ServerProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited: number | string | undefined;
  void server.exited.then((code) => (exited = code));
  while (Date.now() < deadline) {
    if (exited !== undefined) throw new Error(`server exited (${exited}) before it was healthy:\n${server.output()}`);
    try {
      if ((await statusOf(`${server.url}/healthz`)) === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`server not healthy within ${timeoutMs} ms:\n${server.output()}`);
}

/** Resolves with the exit code, or rejects after `timeoutMs` (the caller then kills the process). */
export function exitWithin(server: ServerProcess, timeoutMs: number): Promise<number | string> {
  return Promise.race([
    server.exited,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`process did not exit within ${timeoutMs} ms:\n${server.output()}`)), timeoutMs).unref(),
    ),
  ]);
}

/** True while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A helper process of a test (redis-server, nats-server, PgBouncer, a private PostgreSQL) and what it wrote. */
export interface HelperProcess {
  child: ChildProcess;
  output(): string;
}

/**
 * Spawns `command` and waits until it accepts TCP connections on 127.0.0.1:`port`; fails early if it
 * exits, or after `timeoutMs`, with what it wrote.
 */
export async function spawnListening(command: string, args: string[], port: number, timeoutMs = 15_000): Promise<HelperProcess> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  const helper = { child, output: () => output };
  const deadline = Date.now() + timeoutMs;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${path.basename(command)} on port ${port} did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return helper;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
