import { createBlueprint } from '../fixtures/blueprints';
import { ensureBuilt } from '../helpers/build';
import { Cluster, Receiver } from '../helpers/cluster';
import { eventually } from '../helpers/wait';
import { createTestDatabase } from '../helpers/database';
import { TestNats } from '../helpers/nats';
import { RestClient } from '../helpers/rest';
import { withPg } from '../helpers/sql';

/**
 * Events past one machine (docs/scale.md), with real processes: three server instances over one
 * database, with one NATS JetStream and without; 60 subscribers spread over the three; instances and NATS
 * killed in the middle of bursts. Every subscriber must receive every committed broadcast exactly once,
 * in order, whichever instance it is (re)connected to.
 */
jest.setTimeout(600_000);

const SUBSCRIBERS = 60;

beforeAll(() => ensureBuilt(), 240_000);

function inOrder(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix} ${String(i).padStart(3, '0')}`);
}

function describeCluster(withNats: boolean) {
  describe(withNats ? 'three instances, one database, one NATS JetStream' : 'three instances, one database, LISTEN/NOTIFY (no NATS)', () => {
    let db: { url: string; drop(): Promise<void> };
    let nats: TestNats | undefined;
    let cluster: Cluster;
    let owner: string;
    let blueprintId: string;
    const receivers: Receiver[] = [];
    /** Which instance each receiver is connected to. */
    const at: number[] = [];

    const rest = (i: number) => new RestClient(cluster.url(i));
    const broadcast = (i: number, message: string) =>
      rest(i).post(`/api/blueprints/${blueprintId}/broadcasts`, { token: owner, body: { message, type: 'changelog', severity: 'info' } });
    const committed = async (prefix: string): Promise<string[]> =>
      (await withPg(db.url, (c) => c.query('select message from broadcast where message like $1 order by created_at, id', [`${prefix}%`]))).rows.map(
        (r: { message: string }) => r.message,
      );

    /** Every receiver has exactly `expected` (in this order) among the messages with `prefix`, and no delivery twice. */
    async function allReceived(prefix: string, expected: string[], timeoutMs = 120_000): Promise<void> {
      await eventually(
        () => receivers.every((r) => r.messages(prefix).length >= expected.length),
        timeoutMs,
        () => `received ${receivers.map((r) => r.messages(prefix).length).join(',')} of ${expected.length}`,
      );
      // A moment for any duplicate to show up before we look.
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const r of receivers) {
        expect(r.messages(prefix)).toEqual(expected);
        expect(new Set(r.items.map((d) => d.id)).size).toBe(r.items.length);
      }
    }

    /** Receivers whose stream dropped (their instance died) resume on another live instance with `after`. */
    function reconnectDropped(dead: number): void {
      receivers.forEach((r, j) => {
        if (at[j] !== dead) return;
        const live = [0, 1, 2].filter((i) => i !== dead);
        at[j] = live[j % live.length]!;
        void r.close();
        r.connect(cluster.url(at[j]!));
      });
    }

    beforeAll(async () => {
      db = await createTestDatabase();
      if (withNats) nats = await TestNats.start();
      cluster = await Cluster.start(3, { DATABASE_URL: db.url, NATS_URL: nats?.url, NATS_STREAM: `BW_TEST_${process.pid}` });
      const api = rest(0);
      owner = await api.agentToken('cluster-owner');
      blueprintId = (await createBlueprint(api, owner, { name: 'Cluster source' })).id;
      for (let j = 0; j < SUBSCRIBERS; j++) {
        const token = await rest(j % 3).agentToken(`cluster-sub-${j}`);
        expect((await rest(j % 3).post(`/api/blueprints/${blueprintId}/subscription`, { token })).status).toBe(200);
        const receiver = new Receiver(token);
        receivers.push(receiver);
        at.push(j % 3);
        receiver.connect(cluster.url(j % 3));
      }
    }, 300_000);

    afterAll(async () => {
      await Promise.all(receivers.map((r) => r.close()));
      await cluster?.close();
      await nats?.close();
      await db?.drop();
    });

    it(`the ${SUBSCRIBERS} subscribers on three instances receive every broadcast exactly once and in order`, async () => {
      const messages = inOrder('steady', 20);
      for (const [k, message] of messages.entries()) expect((await broadcast(k % 3, message)).status).toBe(201);
      await allReceived('steady', messages);
      const health = (await (await fetch(`${cluster.url(1)}/healthz`)).json()) as { backplane: unknown };
      expect(health.backplane).toEqual({ name: withNats ? 'nats' : 'postgres', state: 'up' });
    });

    if (withNats)
      it('NATS stopped for a few seconds: writes still succeed, /healthz and /metrics say so, delivery catches up, nothing twice', async () => {
        await nats!.stop();
        await eventually(
          async () => ((await (await fetch(`${cluster.url(0)}/healthz`)).json()) as { backplane: { state: string } }).backplane.state === 'down',
          20_000,
          () => 'healthz never reported the backplane down',
        );
        const messages = inOrder('outage', 10);
        for (const message of messages) expect((await broadcast(0, message)).status).toBe(201);
        const metrics = await (await fetch(`${cluster.url(1)}/metrics`)).text();
        expect(metrics).toMatch(/event_backplane_up\{backplane="nats"\} 0/);
        expect(Number(/^event_outbox_backlog (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(messages.length);
        await new Promise((resolve) => setTimeout(resolve, 2000));
        await nats!.start();
        await allReceived('outage', messages);
        const after = await (await fetch(`${cluster.url(1)}/metrics`)).text();
        expect(after).toMatch(/event_backplane_up\{backplane="nats"\} 1/);
        expect(after).toMatch(/^event_outbox_backlog 0$/m);
      });

    it('an instance SIGKILLed in the middle of 100 broadcasts: its subscribers resume elsewhere with `after`, no gap, nothing twice', async () => {
      const messages = inOrder('burst', 100);
      for (const [k, message] of messages.entries()) {
        if (k === 30) {
          await cluster.kill(2);
          reconnectDropped(2);
        }
        expect((await broadcast(k % 2, message)).status).toBe(201);
      }
      await allReceived('burst', messages);
      await cluster.restart(2);
    });

    it('the instance taking the writes SIGKILLed mid-burst: every broadcast it accepted reaches every subscriber once, none half delivered', async () => {
      const accepted: string[] = [];
      let k = 0;
      for (;;) {
        const message = `writer ${String(k).padStart(3, '0')}`;
        const sending = broadcast(0, message).then(
          (res) => res.status === 201,
          () => false,
        );
        if (k === 40) await cluster.kill(0); // while this POST may be on its way in
        if (!(await sending)) break;
        accepted.push(message);
        k += 1;
      }
      reconnectDropped(0);
      expect(accepted.length).toBeGreaterThanOrEqual(40);
      // What committed: everything accepted, and perhaps the one in flight at the kill.
      const stored = await committed('writer');
      expect(stored.slice(0, accepted.length)).toEqual(accepted);
      expect(stored.length - accepted.length).toBeLessThanOrEqual(1);
      await allReceived('writer', stored);
    });
  });
}

describeCluster(true);
describeCluster(false);
