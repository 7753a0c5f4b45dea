import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { freePort, spawnServer, waitForHealthy, type ServerProcess } from './process';

/**
 * Several server processes over one database (and one NATS when given), as behind a load balancer. Each
 * instance can be SIGKILLed and started again on its port.
 */
export class Cluster {
  readonly servers: ServerProcess[] = [];
  private constructor(
    readonly ports: number[],
    private readonly env: Record<string, string | undefined>,
  ) {}

  static async start(count: number, env: Record<string, string | undefined>): Promise<Cluster> {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) ports.push(await freePort());
    const cluster = new Cluster(ports, {
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '1000000',
      SESSION_CREATES_PER_HOUR: '1000000',
      WS_CONNECTIONS_PER_TOKEN: '100',
      OUTBOX_POLL_MS: '200',
      ...env,
    });
    for (let i = 0; i < count; i++) cluster.servers.push(spawnServer(ports[i]!, cluster.env));
    await Promise.all(cluster.servers.map((s) => waitForHealthy(s, 120_000)));
    return cluster;
  }

  url(i: number): string {
    return `http://127.0.0.1:${this.ports[i]}`;
  }

  /** SIGKILL: no drain, no goodbye. */
  async kill(i: number): Promise<void> {
    const server = this.servers[i]!;
    server.child.kill('SIGKILL');
    await server.exited;
  }

  async restart(i: number): Promise<void> {
    this.servers[i] = spawnServer(this.ports[i]!, this.env);
    await waitForHealthy(this.servers[i]!, 120_000);
  }

  /** Kills whatever still runs (SIGTERM, then SIGKILL after 10 s). */
  async close(): Promise<void> {
    await Promise.all(
      this.servers.map(async (s) => {
        if (s.child.exitCode !== null || s.child.signalCode !== null) return;
        s.child.kill('SIGTERM');
        const timer = setTimeout(() => s.child.kill('SIGKILL'), 10_000);
        await s.exited;
        clearTimeout(timer);
      }),
    );
  }
}

export interface Delivery {
  id: string;
  message: string;
}

/**
 * One subscriber's `broadcastReceived` stream, resumable on any instance with `after` (the last delivery
 * id it received). Keeps every delivery in arrival order.
 */
export class Receiver {
  readonly items: Delivery[] = [];
  private client: Client | null = null;
  /** Set when the stream ended by itself (instance killed, error). */
  dropped = false;
  errors: unknown[] = [];

  constructor(readonly token: string) {}

  get after(): string {
    return this.items.at(-1)?.id ?? '0';
  }

  connect(baseUrl: string): void {
    this.dropped = false;
    const client = createClient({
      url: baseUrl.replace(/^http/, 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${this.token}` },
      retryAttempts: 0,
      lazy: true,
    });
    this.client = client;
    client.subscribe<{ broadcastReceived: { id: string; broadcast: { message: string } } }>(
      { query: 'subscription ($after: ID) { broadcastReceived(after: $after) { id broadcast { message } } }', variables: { after: this.after } },
      {
        next: (r) => {
          if (r.data) this.items.push({ id: r.data.broadcastReceived.id, message: r.data.broadcastReceived.broadcast.message });
          else this.errors.push(r.errors);
        },
        error: (e) => {
          if (this.client === client) this.dropped = true;
          this.errors.push(e);
        },
        complete: () => {
          if (this.client === client) this.dropped = true;
        },
      },
    );
  }

  /** The messages received that start with `prefix`, in arrival order. */
  messages(prefix: string): string[] {
    return this.items.filter((d) => d.message.startsWith(prefix)).map((d) => d.message);
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    await client?.dispose();
  }
}
