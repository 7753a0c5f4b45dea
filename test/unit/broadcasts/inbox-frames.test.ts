import type { BlueprintView } from '../../../src/blueprints/blueprint.view';
import { execute, type GraphQLSchema } from 'graphql';
import { graphQLSchema } from '../../../src/app';
import { fullProjection } from '../../../src/blueprints/blueprint.projection';
import { BroadcastSeverity, BroadcastType } from '../../../src/broadcasts/broadcast.entity';
import { inboxLive } from '../../../src/broadcasts/inbox-live';
import type { InboxItem } from '../../../src/broadcasts/inbox.service';
import type { Viewer } from '../../../src/platform/context';
import { CompiledDocuments } from '../../../src/platform/graphql/graphql-compiled';
import { directFrame, executedFrame, frameContext, random, subscriptionInfo } from '../../helpers/frames';

/**
 * The live inbox's direct path (the frame encoder behind the live engine's one hook) answers exactly what
 * the type-graphql resolvers answer: for many generated deliveries (nulls, unicode, every enum value,
 * sources public, private, team-owned and gone), each selection runs through graphql execution (graphql-js
 * and the compiled path the server uses) and through the encoder, and the frames are compared as text.
 * Deliveries the engine may not hand to the encoder (`visibleToAll` false: the receiver's access decides
 * what the resolvers answer) are shown to need it.
 */

const viewer: Viewer = { principalId: '00000000-0000-4000-8000-0000000000aa', kind: 'agent', name: 'reader' };
const other = '00000000-0000-4000-8000-0000000000bb';

const context = () => frameContext(viewer);

const texts = [
  'plain',
  '',
  "Ünïcödé 👩‍💻 — “quotes” 'single' \\ backslash",
  'line\nbreak\ttab\r\u0000nul \u2028\u2029 separators',
  'עברית والعربية 中文 🇺🇦',
  '</script><!-- "json" -->',
  '\ud83d\ude00'.repeat(50),
];

function pick<T>(next: () => number, values: readonly T[]): T {
  return values[Math.floor(next() * values.length)]!;
}

function uuid(next: () => number): string {
  const hex = () => Math.floor(next() * 16).toString(16);
  const part = (n: number) => Array.from({ length: n }, hex).join('');
  return `${part(8)}-${part(4)}-4${part(3)}-8${part(3)}-${part(12)}`;
}

function source(next: () => number): BlueprintView | null {
  const kind = pick(next, ['gone', 'public', 'public', 'private-own', 'private-other', 'team'] as const);
  if (kind === 'gone') return null;
  return fullProjection.map({
    id: uuid(next),
    slug: `${pick(next, ['a', 'ü-slug', 'x'])}-${Math.floor(next() * 1000)}`,
    name: pick(next, texts),
    visibility: kind === 'public' ? 'public' : 'private',
    owner_id: kind === 'private-own' ? viewer.principalId : other,
    team_id: kind === 'team' ? uuid(next) : null,
    created_at: new Date(1_700_000_000_000 + Math.floor(next() * 1e10)).toISOString(),
    updated_at: new Date(1_700_000_000_000).toISOString(),
  });
}

function delivery(next: () => number, i: number): InboxItem {
  const src = source(next);
  return {
    id: String(1 + i * 7919 + Math.floor(next() * 1000)),
    readAt: next() < 0.5 ? null : new Date(1_700_000_000_000 + Math.floor(next() * 1e11)),
    broadcast: {
      id: uuid(next),
      sourceBlueprintId: src ? src.id : next() < 0.5 ? null : uuid(next),
      senderId: next() < 0.2 ? viewer.principalId : other,
      message: pick(next, texts) + pick(next, texts),
      type: pick(next, Object.values(BroadcastType)),
      severity: pick(next, Object.values(BroadcastSeverity)),
      recipientCount: Math.floor(next() * 10_000),
      createdAt: new Date(1_600_000_000_000 + Math.floor(next() * 1e11)),
    },
    source: src,
  };
}

/** Selections the encoder must answer (it may not decline them). */
const encoded = [
  // The fan-out bench's document.
  `subscription Inbox($after: ID) { broadcastReceived(after: $after) { id readAt broadcast { id message type severity sourceBlueprint { id slug name } } } }`,
  `subscription { broadcastReceived {
    __typename id readAt
    broadcast { __typename id message type severity createdAt sourceBlueprintId sourceBlueprint { __typename id slug name } } } }`,
  `subscription { broadcastReceived { ...Item } }
    fragment Item on InboxItem { __typename id readAt
      broadcast { __typename id message type severity createdAt sourceBlueprintId sourceBlueprint { ... on Blueprint { __typename id slug name } } } }`,
  `subscription { broadcastReceived { delivery: id b: broadcast { text: message kind: type id } when: readAt id } }`,
  `subscription { broadcastReceived { id id readAt broadcast { ...B } } } fragment B on Broadcast { severity sourceBlueprint { name name } message }`,
  `subscription { broadcastReceived { broadcast { sourceBlueprintId } } }`,
];

/** Selections the encoder declines (a field with a per-receiver rule, a directive): execution answers them. */
const declined = [
  `subscription { broadcastReceived { id broadcast { id recipientCount } } }`,
  `subscription { broadcastReceived { id readAt @include(if: true) } }`,
  `subscription { broadcastReceived { id broadcast { sourceBlueprint { id viewerIsSubscribed } } } }`,
];

const infoOf = (schema: GraphQLSchema, query: string) => subscriptionInfo(schema, 'broadcastReceived', query);

describe('the live inbox frame encoder answers what the resolvers answer', () => {
  let schema: GraphQLSchema;
  beforeAll(async () => {
    schema = await graphQLSchema();
  });

  it('for every field of the subscription, over 300 generated deliveries per selection', async () => {
    const next = random(27);
    const items = Array.from({ length: 300 }, (_, i) => delivery(next, i));
    const compiled = new CompiledDocuments(schema);
    let compared = 0;
    let gated = 0;
    for (const query of encoded) {
      const { document, info } = infoOf(schema, query);
      const encoder = inboxLive.frames!(info);
      expect(encoder).not.toBeNull();
      for (const item of items) {
        if (!inboxLive.visibleToAll!(item)) {
          // Private or team sources: what the receiver sees depends on its access, so the engine runs the resolvers.
          expect(item.source?.visibility).toBe('private');
          gated += 1;
          continue;
        }
        const args = { schema, document, rootValue: item, contextValue: context(), variableValues: { after: null } };
        const expected = executedFrame(await execute(args));
        // The server runs documents compiled: that path answers the same text.
        expect(executedFrame(await compiled.execute({ ...args, contextValue: context() }))).toBe(expected);
        const payload = encoder!.encode(item);
        expect(payload).not.toBeNull();
        expect(directFrame(payload!)).toBe(expected);
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(encoded.length * 100);
    expect(gated).toBeGreaterThan(encoded.length * 50);
  });

  it('declines selections with per-receiver fields or directives, which execution answers', async () => {
    for (const query of declined) expect(inboxLive.frames!(infoOf(schema, query).info)).toBeNull();
  });

  it('shows why the gate matters: for a private source of someone else the resolvers answer null', async () => {
    const next = random(5);
    let item = delivery(next, 0);
    while (item.source?.visibility !== 'private' || item.source.team !== null || item.source.owner.id === viewer.principalId) item = delivery(next, 0);
    const { document } = infoOf(schema, encoded[1]!);
    const result = (await execute({ schema, document, rootValue: item, contextValue: context() })) as {
      data: { broadcastReceived: { broadcast: { sourceBlueprint: unknown } } };
    };
    expect(result.data.broadcastReceived.broadcast.sourceBlueprint).toBeNull();
    expect(inboxLive.visibleToAll!(item)).toBe(false);
  });
});
