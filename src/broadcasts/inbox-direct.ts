import type { GraphQLResolveInfo } from 'graphql';
import type { BlueprintView } from '../blueprints/blueprint.view';
import { FALL_BACK, encodeObject, encodeValue, rootPlanOf, type FieldPlan, type Readers } from '../platform/live/frame-plan';
import type { FrameEncoder } from '../platform/live/live-feed';
import type { BroadcastRecord, InboxItem } from './inbox.service';

/**
 * The live inbox's frame encoder (the live engine's direct path, `FrameEncoder`): for a `broadcastReceived` selection of plain fields (see `readers`; fragments
 * on the same type are spread in; no directives, arguments or abstract types below the root field), a subscriber's `next` payload is written as
 * JSON straight from the event, without executing the document. The broadcast part of the payload is the
 * same for every receiver of one event, so it is encoded once per event and document; only `id` and
 * `readAt` (the receiver's own delivery row) are encoded per receiver. Anything else runs the normal way.
 *
 * The engine hands it only events every receiver may see in full (`inboxLive.visibleToAll`: the source is
 * public or gone); any other event takes the normal path, where the resolvers check the receiver's access.
 * `test/integration/inbox-frames.test.ts` proves its answers equal execution's, field by field.
 */

/** The fields the fast path knows, per GraphQL type, and where each reads its value. */
const readers: Readers = {
  InboxItem: {
    id: (l) => (l as { item: InboxItem }).item.id,
    readAt: (l) => (l as { item: InboxItem }).item.readAt,
    broadcast: (l) => {
      const item = (l as { item: InboxItem }).item;
      return { broadcast: item.broadcast, source: item.source };
    },
  },
  Broadcast: {
    id: (l) => (l as { broadcast: BroadcastRecord }).broadcast.id,
    message: (l) => (l as { broadcast: BroadcastRecord }).broadcast.message,
    type: (l) => (l as { broadcast: BroadcastRecord }).broadcast.type,
    severity: (l) => (l as { broadcast: BroadcastRecord }).broadcast.severity,
    createdAt: (l) => (l as { broadcast: BroadcastRecord }).broadcast.createdAt,
    sourceBlueprintId: (l) => (l as { broadcast: BroadcastRecord }).broadcast.sourceBlueprintId,
    sourceBlueprint: (l) => {
      const source = (l as { source: BlueprintView | null }).source;
      return source ? { blueprint: source } : null;
    },
  },
  Blueprint: {
    id: (l) => (l as { blueprint: BlueprintView }).blueprint.id,
    slug: (l) => (l as { blueprint: BlueprintView }).blueprint.slug,
    name: (l) => (l as { blueprint: BlueprintView }).blueprint.name,
  },
};

/** Encodes `next` payloads of one `broadcastReceived` selection; shared by every socket that sent the document. */
export class InboxEventEncoder implements FrameEncoder<InboxItem> {
  private lastBroadcast: BroadcastRecord | null = null;
  private lastSource: BlueprintView | null | undefined = undefined;
  private lastBroadcastJson: string | typeof FALL_BACK = FALL_BACK;

  constructor(
    private readonly prefix: string,
    private readonly item: FieldPlan[],
    private readonly broadcastIndex: number,
    private readonly readsSource: boolean,
  ) {}

  /** The `next` payload (`{"data":{...}}`) for this delivery, or null: run the document instead. */
  encode(item: InboxItem): string | null {
    if (this.readsSource && item.source === undefined) return null; // not read along: the resolver loads it
    const broadcastPlan = this.broadcastIndex >= 0 ? this.item[this.broadcastIndex]!.object! : null;
    if (broadcastPlan && (item.broadcast !== this.lastBroadcast || item.source !== this.lastSource)) {
      this.lastBroadcastJson = encodeObject(broadcastPlan, { broadcast: item.broadcast, source: item.source });
      this.lastBroadcast = item.broadcast;
      this.lastSource = item.source;
    }
    let out = this.prefix;
    const level = { item };
    for (let i = 0; i < this.item.length; i++) {
      const plan = this.item[i]!;
      if (i > 0) out += ',';
      if (i === this.broadcastIndex) {
        if (this.lastBroadcastJson === FALL_BACK) return null;
        out += plan.keyJson + this.lastBroadcastJson;
        continue;
      }
      const value = encodeValue(plan, level);
      if (value === FALL_BACK) return null;
      out += plan.keyJson + value;
    }
    return out + '}}}';
  }
}

const encoders = new WeakMap<object, InboxEventEncoder | null>();

/**
 * The encoder for this subscription's selection, or null when it is not a plain one. Cached per field
 * node: sockets that send the same document share the parsed document, so they share one encoder.
 */
export function inboxEncoderFor(info: GraphQLResolveInfo): InboxEventEncoder | null {
  const node = info.fieldNodes.length === 1 ? info.fieldNodes[0]! : null;
  if (!node) return null;
  if (encoders.has(node)) return encoders.get(node)!;
  let encoder: InboxEventEncoder | null = null;
  const root = rootPlanOf(readers, info);
  if (root) {
    const broadcastIndex = root.plans.findIndex((p) => p.object !== undefined);
    const readsSource = root.plans.some((p) => p.object?.some((q) => q.object !== undefined));
    encoder = new InboxEventEncoder(root.prefix, root.plans, broadcastIndex, readsSource);
  }
  encoders.set(node, encoder);
  return encoder;
}
