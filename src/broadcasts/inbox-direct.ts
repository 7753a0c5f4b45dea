import type { BlueprintView } from '../blueprints/blueprint.view';
import {
  Kind,
  getNamedType,
  isLeafType,
  isNonNullType,
  isObjectType,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type SelectionSetNode,
} from 'graphql';
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

/** One level of the event as the encoder reads it. */
type Level = { item: InboxItem } | { broadcast: BroadcastRecord; source: BlueprintView | null | undefined } | { blueprint: BlueprintView };

type Reader = (level: Level) => unknown;

type FragmentMap = Record<string, FragmentDefinitionNode>;

/** The fields the fast path knows, per GraphQL type, and where each reads its value. */
const readers: Record<string, Record<string, Reader>> = {
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

interface FieldPlan {
  /** `"responseKey":` */
  keyJson: string;
  read: Reader | null;
  /** The type name, for `__typename`. */
  typename?: string;
  serialize?: (value: unknown) => unknown;
  nonNull: boolean;
  object?: FieldPlan[];
}

/** Why an event cannot be encoded here: it takes the normal path instead. */
const FALL_BACK = Symbol('fall back');

/**
 * The fields of a selection set with fragments spread in (fragments on this type, without directives);
 * null when something else is there. A response key selected twice is kept once, in its first place, as
 * GraphQL merges it; twice with a sub-selection is left to graphql-js (it merges the sub-selections).
 */
function fieldsOf(type: GraphQLObjectType, selectionSet: SelectionSetNode, fragments: FragmentMap, out: Map<string, FieldNode>): boolean {
  for (const selection of selectionSet.selections) {
    if (selection.directives?.length) return false;
    if (selection.kind === Kind.FIELD) {
      const key = selection.alias?.value ?? selection.name.value;
      const seen = out.get(key);
      if (!seen) out.set(key, selection);
      else if (seen.name.value !== selection.name.value || seen.selectionSet || selection.selectionSet) return false;
      continue;
    }
    const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? fragments[selection.name.value] : selection;
    if (!fragment || (fragment.typeCondition && fragment.typeCondition.name.value !== type.name)) return false;
    if (fragment.directives?.length || !fieldsOf(type, fragment.selectionSet, fragments, out)) return false;
  }
  return true;
}

function planOf(type: GraphQLObjectType, selectionSet: SelectionSetNode | undefined, fragments: FragmentMap): FieldPlan[] | null {
  const known = readers[type.name];
  const fields = new Map<string, FieldNode>();
  if (!known || !selectionSet || !fieldsOf(type, selectionSet, fragments, fields)) return null;
  const plans: FieldPlan[] = [];
  for (const [key, selection] of fields) {
    if (selection.arguments?.length) return null;
    const keyJson = `${JSON.stringify(key)}:`;
    if (selection.name.value === '__typename') {
      plans.push({ keyJson, read: null, typename: type.name, nonNull: true });
      continue;
    }
    const read = known[selection.name.value];
    const field = type.getFields()[selection.name.value];
    if (!read || !field) return null;
    const named = getNamedType(field.type);
    const nonNull = isNonNullType(field.type);
    if (isLeafType(named)) {
      if (selection.selectionSet) return null;
      plans.push({ keyJson, read, nonNull, serialize: (value) => named.serialize(value) });
    } else if (isObjectType(named)) {
      const object = planOf(named, selection.selectionSet, fragments);
      if (!object) return null;
      plans.push({ keyJson, read, nonNull, object });
    } else return null;
  }
  return plans;
}

/** One field's value as JSON. */
function encodeValue(plan: FieldPlan, level: Level): string | typeof FALL_BACK {
  if (plan.typename !== undefined) return JSON.stringify(plan.typename);
  const value = plan.read!(level);
  if (value === null || value === undefined) return plan.nonNull ? FALL_BACK : 'null';
  if (plan.object) return encodeObject(plan.object, value as Level);
  return JSON.stringify(plan.serialize!(value));
}

function encodeObject(plans: FieldPlan[], level: Level): string | typeof FALL_BACK {
  let out = '{';
  for (let i = 0; i < plans.length; i++) {
    const plan = plans[i]!;
    const value = encodeValue(plan, level);
    if (value === FALL_BACK) return FALL_BACK;
    out += (i > 0 ? ',' : '') + plan.keyJson + value;
  }
  return out + '}';
}

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
  const type = getNamedType(info.returnType);
  const plans = !node.directives?.length && isObjectType(type) ? planOf(type, node.selectionSet, info.fragments) : null;
  if (plans) {
    const broadcastIndex = plans.findIndex((p) => p.object !== undefined);
    const readsSource = plans.some((p) => p.object?.some((q) => q.object !== undefined));
    encoder = new InboxEventEncoder(`{"data":{${JSON.stringify(node.alias?.value ?? node.name.value)}:{`, plans, broadcastIndex, readsSource);
  }
  encoders.set(node, encoder);
  return encoder;
}
