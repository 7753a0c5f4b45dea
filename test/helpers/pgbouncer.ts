import { execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, spawnListening } from './process';

/** Debian's `pgbouncer` package (`.ci/run` installs it when missing). */
export const PGBOUNCER = process.env.PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';

/** Runs `command` as the `postgres` OS user when we are root (PgBouncer and PostgreSQL refuse root). */
export function asPostgres(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/** Makes `dir` the postgres user's when we are root. */
export function giveToPostgres(dir: string): void {
  if (process.getuid?.() === 0) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
}

/**
 * A real PgBouncer of the test's own in front of `upstream` (host:port), in transaction pooling, on a
 * free port. Every database name is passed through (`* =`); any user is trusted (as the local server is).
 */
export class TestPgBouncer {
  private constructor(
    readonly port: number,
    private readonly child: ChildProcess,
    private readonly dir: string,
  ) {}

  static async start(upstream: { host: string; port: number }, poolSize = 10): Promise<TestPgBouncer> {
    const port = await freePort();
    const dir = mkdtempSync(path.join(tmpdir(), 'bw-pgbouncer-'));
    chmodSync(dir, 0o755);
    writeFileSync(path.join(dir, 'userlist.txt'), '"postgres" ""\n');
    writeFileSync(
      path.join(dir, 'pgbouncer.ini'),
      [
        '[databases]',
        `* = host=${upstream.host} port=${upstream.port}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${path.join(dir, 'userlist.txt')}`,
        'pool_mode = transaction',
        `default_pool_size = ${poolSize}`,
        'max_client_conn = 500',
        'ignore_startup_parameters = extra_float_digits',
        `logfile = ${path.join(dir, 'pgbouncer.log')}`,
        `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
        '',
      ].join('\n'),
    );
    giveToPostgres(dir);
    const [cmd, args] = asPostgres(PGBOUNCER, [path.join(dir, 'pgbouncer.ini')]);
    const { child } = await spawnListening(cmd, args, port);
    return new TestPgBouncer(port, child, dir);
  }

  /** `url` with its host and port replaced by this PgBouncer's. */
  through(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  async close(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      // PgBouncer itself (runuser may not pass signals on); SIGINT is its safe shutdown.
      const pid = Number(readFileSync(path.join(this.dir, 'pgbouncer.pid'), 'utf8').trim());
      process.kill(pid, 'SIGINT');
      const timer = setTimeout(() => process.kill(pid, 'SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
