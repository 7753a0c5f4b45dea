import { DeliverPolicy, jetstream, jetstreamManager, StorageType, type ConsumerMessages, type JetStreamClient } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { BackplaneReceiver } from './backplane';
import type { OutboxEvent, PublishingTarget } from './outbox';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SECOND_NS = 1_000_000_000;

/**
 * NATS JetStream (`NATS_URL` set). One stream per deployment (`NATS_STREAM`), subjects by topic
 * (`<stream in lower case>.<topic>`); the relay publishes each outbox row with its id as `Nats-Msg-Id`, so a
 * re-publish after a relay crash inside the duplicate window is dropped by the server. Each instance reads
 * the stream with an ordered consumer from the moment it started, and dispatches to its own subscribers.
 *
 * NATS down: the relay's passes fail and roll back (the rows stay in the outbox, writes keep committing),
 * the consumer waits; when NATS is back the relay publishes the backlog and every consumer resumes from
 * the last stream sequence it saw. The server starts even when NATS does not answer, and keeps trying.
 */
export class NatsBackplane implements PublishingTarget, BackplaneReceiver {
  readonly name = 'nats' as const;
  private nc: NatsConnection | null = null;
  private js: JetStreamClient | null = null;
  private connected = false;
  private streamReady = false;
  private stopped = false;
  private messages: ConsumerMessages | null = null;
  /** The last stream sequence this instance received (a new consumer continues after it). */
  private lastSeq = 0;
  private deliver: (events: OutboxEvent[]) => void = () => undefined;
  private resumed: () => void = () => undefined;
  private readonly prefix: string;

  constructor(
    private readonly url: string,
    private readonly stream: string,
    private readonly log: (msg: string, err?: unknown) => void,
  ) {
    if (!/^[A-Za-z0-9_-]+$/.test(stream)) throw new Error(`NATS_STREAM must be letters, digits, "_" or "-", got "${stream}"`);
    this.prefix = stream.toLowerCase();
  }

  subject(topic: string): string {
    return `${this.prefix}.${topic}`;
  }

  state(): 'up' | 'down' {
    return this.connected && this.streamReady ? 'up' : 'down';
  }

  async start(deliver: (events: OutboxEvent[]) => void, resumed: () => void): Promise<void> {
    this.deliver = deliver;
    this.resumed = resumed;
    // Waits a moment for the first connection; a NATS that does not answer does not keep the server down.
    await Promise.race([this.connectLoop(), sleep(3000)]);
  }

  private async connectLoop(): Promise<void> {
    let reported = false;
    while (!this.stopped) {
      try {
        // noAsyncTraces: a publish is a request, and the client otherwise captures a stack trace for each one
        // in case it fails (about 0.26 ms of the writing instance's CPU per fork in bench:scale's profile).
        const nc = await connect({
          servers: this.url,
          name: 'blueprint-workshop',
          maxReconnectAttempts: -1,
          reconnectTimeWait: 500,
          timeout: 2000,
          noAsyncTraces: true,
        });
        if (this.stopped) {
          await nc.close();
          return;
        }
        this.nc = nc;
        this.connected = true;
        this.js = jetstream(nc, { timeout: 5000 });
        void this.watch(nc);
        await this.ensureStream().catch((err) => this.log('NATS stream not ready yet; the relay retries', err));
        void this.consume();
        return;
      } catch (err) {
        if (!reported) this.log(`NATS at ${this.url} does not answer; events wait in the outbox until it does`, err);
        reported = true;
        await sleep(1000);
      }
    }
  }

  private async watch(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') {
        this.connected = false;
        this.log('NATS connection lost; reconnecting');
      } else if (status.type === 'reconnect') {
        this.connected = true;
        this.log('NATS connection back');
      }
    }
  }

  /** Creates the deployment's stream unless it exists (several instances may race; creating the same config twice is fine). */
  private async ensureStream(): Promise<void> {
    const jsm = await jetstreamManager(this.nc!, { timeout: 5000 });
    try {
      await jsm.streams.info(this.stream);
    } catch {
      await jsm.streams.add({
        name: this.stream,
        subjects: [`${this.prefix}.>`],
        storage: StorageType.File,
        max_age: 24 * 60 * 60 * SECOND_NS,
        duplicate_window: 2 * 60 * SECOND_NS,
      });
    }
    this.streamReady = true;
  }

  async send(_client: unknown, events: OutboxEvent[]): Promise<void> {
    if (!this.js || !this.connected) throw new Error('NATS is not connected');
    if (!this.streamReady) await this.ensureStream();
    const js = this.js;
    try {
      // Published on one connection, so the stream stores them in this order; all acks are awaited.
      await Promise.all(events.map((e) => js.publish(this.subject(e.topic), JSON.stringify(e), { msgID: e.id, timeout: 5000 })));
    } catch (err) {
      // E.g. the server came back with an empty store: make the stream again before the next pass.
      this.streamReady = false;
      throw err;
    }
  }

  /** Reads the stream in order, from this instance's start (or after the last sequence it saw), until stopped. */
  private async consume(): Promise<void> {
    let first = true;
    while (!this.stopped) {
      try {
        if (!this.streamReady) await this.ensureStream();
        const from =
          this.lastSeq > 0 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: this.lastSeq + 1 } : { deliver_policy: DeliverPolicy.New };
        const consumer = await this.js!.consumers.get(this.stream, { ...from, filter_subjects: `${this.prefix}.>` });
        const messages = await consumer.consume();
        this.messages = messages;
        if (!first) this.resumed();
        first = false;
        for await (const m of messages) {
          this.lastSeq = m.seq;
          let event: OutboxEvent;
          try {
            event = m.json<OutboxEvent>();
          } catch (err) {
            this.log('dropped a malformed event message', err);
            continue;
          }
          this.deliver([event]);
        }
      } catch (err) {
        if (!this.stopped) this.log('NATS consumer stopped; starting it again', err);
      }
      if (!this.stopped) await sleep(1000);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.messages?.close().catch(() => undefined);
    await this.nc?.close().catch(() => undefined);
    this.nc = null;
  }
}
