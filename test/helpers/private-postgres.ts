import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { asPostgres, giveToPostgres } from './pgbouncer';
import { freePort, spawnListening } from './process';

/** The machine's PostgreSQL binaries (Debian: /usr/lib/postgresql/<major>/bin), if any. */
export function postgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const major = readdirSync(root).sort((a, b) => Number(b) - Number(a))[0];
  return major ? path.join(root, major, 'bin') : null;
}

/**
 * A PostgreSQL cluster of the test's own (initdb in a temp folder, a free port), for settings the shared
 * server lacks and that need a restart, e.g. `shared_preload_libraries = pg_stat_statements`.
 */
export class PrivatePostgres {
  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly bin: string,
  ) {}

  static async start(settings: string[]): Promise<PrivatePostgres> {
    const bin = postgresBin();
    if (!bin) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql');
    const dir = mkdtempSync(path.join(tmpdir(), 'bw-pg-'));
    giveToPostgres(dir);
    const data = path.join(dir, 'data');
    const [initCmd, initArgs] = asPostgres(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    execFileSync(initCmd, initArgs, { stdio: 'ignore' });
    const port = await freePort();
    const flags = ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', ...settings.flatMap((s) => ['-c', s])];
    const [cmd, args] = asPostgres(path.join(bin, 'postgres'), flags);
    const { child } = await spawnListening(cmd, args, port, 30_000);
    // Accepting TCP is not yet accepting queries: wait for the startup to finish. pg_isready answers 1 at
    // once while the server is still starting ("rejecting connections"), so it is asked until it says 0.
    const [readyCmd, readyArgs] = asPostgres(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-t', '30']);
    const deadline = Date.now() + 30_000;
    const ready = () => spawnSync(readyCmd, readyArgs, { stdio: 'ignore' }).status;
    for (let status = ready(); status !== 0; status = ready()) {
      if (status !== 1 || Date.now() > deadline) throw new Error(`PostgreSQL on port ${port} did not become ready (pg_isready: ${status})`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const pg = new PrivatePostgres(port, dir, bin);
    pg.stopChild = async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // The postmaster itself (runuser may not pass signals on): SIGINT is PostgreSQL's fast shutdown.
      const pid = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGINT');
      const timer = setTimeout(() => process.kill(pid, 'SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    };
    return pg;
  }

  private stopChild: () => Promise<void> = async () => undefined;

  url(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async close(): Promise<void> {
    await this.stopChild();
    rmSync(this.dir, { recursive: true, force: true });
    void this.bin;
  }
}
