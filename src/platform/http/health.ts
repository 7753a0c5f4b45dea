import { Client } from 'pg';

/**
 * `/healthz`'s own PostgreSQL connection, outside the request pool: a pool drained by slow or locked
 * writes cannot delay it, and a dead database makes it answer 503 within `timeoutMs` instead of waiting.
 * One connection, opened on first use and again after any failure; concurrent probes share one query.
 */
export class HealthProbe {
  private client: Client | null = null;
  private inFlight: Promise<boolean> | null = null;
  private closed = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  /** True when the database answered `select 1` within the timeout. */
  check(): Promise<boolean> {
    this.inFlight ??= this.probe().finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  private async probe(): Promise<boolean> {
    if (this.closed) return false;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.timeoutMs)));
    const answered = (async () => {
      if (!this.client) {
        const client = new Client({ connectionString: this.databaseUrl, connectionTimeoutMillis: this.timeoutMs, keepAlive: true });
        client.on('error', () => this.drop(client));
        this.client = client;
        await client.connect();
      }
      await this.client.query('select 1');
      return true;
    })();
    try {
      const ok = await Promise.race([answered.catch(() => false), timedOut]);
      if (!ok) this.drop(this.client);
      return ok;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Forgets a broken or stuck connection; the next probe opens a fresh one. */
  private drop(client: Client | null): void {
    if (!client || this.client !== client) return;
    this.client = null;
    void client.end().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
