import type { EntityManager } from '@mikro-orm/postgresql';
import type { GraphQLResolveInfo } from 'graphql';
import { canReadWith, type Guarded } from '../blueprints/access';
import type { RequestContext } from '../platform/context';
import { executePrepared } from '../platform/sql/database';
import { AppError, notFound } from '../platform/errors';
import { durableStream, type DurableTopic, type Pending } from '../platform/live/durable-live';
import { enrichOutbox } from '../platform/live/outbox';
import type { EventTopics } from '../platform/live/events';
import { FALL_BACK, encodeObject, rootPlanOf, type FieldPlan, type Readers } from '../platform/live/frame-plan';
import type { StreamEnd } from '../platform/live/live';
import type { FrameEncoder } from '../platform/live/live-feed';
import type { TeamRole } from '../teams/team.entity';

/**
 * The live side of `blueprintActivity`: the topic `blueprint.activity` as the platform's shared hub
 * (`platform/live/durable-live.ts`) reads it. Each event is resolved ONCE per instance, however many
 * subscribers listen here: one statement reads the blueprints the event names (the blueprint, a fork, a
 * proposal's source) as they are now, with the team roles of this instance's listeners in the teams of
 * the private ones; then every listener's sight of the event is decided in memory by the read rule
 * (`canReadWith`), and each gets one of a few shared items:
 * - the event itself (it may read everything the event names);
 * - the event without its `subjectId`, when it may not read the new fork a FORKED event names;
 * - nothing, for a proposal event whose source it may not read;
 * - NOT_FOUND, which ends its stream, once it may no longer read the blueprint (turned private, deleted).
 * Access is read fresh for every event (a blueprint can turn private, a member can leave its team), as
 * before; the connection's token is checked by the hub for all listeners at once.
 */

type ActivityEvent = EventTopics['blueprint.activity'];

/** One listener's item: the event as it may see it, or why its stream ends. */
export type ActivityItem = ActivityEvent | AppError;

/** The hub's receiver key of a subscription: the blueprint and who watches it (anonymous: nobody). */
function receiverOf(blueprintId: string, principalId: string | null): string {
  return `${blueprintId} ${principalId ?? ''}`;
}

interface GuardRow {
  id: string;
  visibility: string;
  owner_id: string;
  team_id: string | null;
  /** principal id -> role in the blueprint's team, for the listening principals (private team blueprints only). */
  members: Record<string, TeamRole>;
}

const NO_ROLES: ReadonlyMap<string, TeamRole> = new Map();

/** Whether `principalId` may read the blueprint `row` (absent: it is gone), by the one read rule. */
function readable(row: GuardRow | undefined, principalId: string | null): boolean {
  if (!row) return false;
  const guard: Guarded = { visibility: row.visibility, ownerId: row.owner_id, teamId: row.team_id };
  const role = principalId !== null && row.team_id !== null ? row.members[principalId] : undefined;
  return canReadWith(principalId === null ? null : { principalId }, role === undefined ? NO_ROLES : new Map([[row.team_id!, role]]), guard);
}

/** The blueprints an event names: the blueprint, a FORKED event's fork, a proposal event's source. */
function namedBy(event: ActivityEvent): string[] {
  return [
    event.blueprintId,
    ...(event.kind === 'forked' && event.subjectId ? [event.subjectId] : []),
    ...(event.sourceId !== undefined ? [event.sourceId] : []),
  ];
}

/**
 * Each activity event records, at insert and in the write's own transaction, whether every blueprint it
 * names exists and is public (`open`). Such an event is everyone's to see as it is: it needs no read when it
 * is delivered. The others are read as they are at delivery (below). An event is judged by what was public
 * when it committed: one that committed while its blueprint was public still reaches a listener after the
 * blueprint turned private, and the change's own `edited` event (not open) ends that listener's stream.
 */
enrichOutbox('blueprint.activity', (event: ActivityEvent) => {
  const ids = [...new Set(namedBy(event))];
  return {
    sql: `jsonb_build_object('open', (select count(*) from blueprint b where b.id = any(?::uuid[]) and b.visibility = 'public') = ?::int)`,
    // A deletion is never open (no count is -1): its listeners must read that the blueprint is gone.
    params: [`{${ids.join(',')}}`, event.kind === 'deleted' ? -1 : ids.length],
  };
});

/** The blueprints of `ids`, with the roles of the principals of `principals` in the teams of the private ones. */
const GUARDS_SQL = `select b.id, b.visibility, b.owner_id, b.team_id,
            case when b.visibility = 'public' or b.team_id is null then '{}'::json
                 else coalesce((select json_object_agg(m.principal_id, m.role) from team_member m
                                 where m.team_id = b.team_id and m.principal_id = any(?::uuid[])), '{}'::json) end as members
       from blueprint b where b.id = any(?::uuid[])`;

/**
 * The items of events that waited together, each for its own receivers: ONE statement reads every
 * blueprint they name as it is now, with the team roles of every listening principal in the teams of the
 * private ones; then each receiver's sight of each event is decided in memory.
 */
async function readActivity<V>(em: EntityManager, batch: ReadonlyArray<Pending<'blueprint.activity', V>>): Promise<Array<Array<[V, ActivityItem]>>> {
  const principals = new Set<string>();
  const ids = new Set<string>();
  for (const { event, listening } of batch) {
    if (event.open === true) continue;
    for (const id of namedBy(event)) ids.add(id);
    for (const receiver of listening.keys()) {
      const principal = receiver.slice(receiver.indexOf(' ') + 1);
      if (principal) principals.add(principal);
    }
  }
  // Open events only: nothing to read.
  const rows =
    ids.size === 0
      ? []
      : await executePrepared<GuardRow>(em, 'activity_live_guards', GUARDS_SQL, [`{${[...principals].join(',')}}`, `{${[...ids].join(',')}}`]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return batch.map(({ event, listening }) =>
    event.open === true ? [...listening.values()].map((entry): [V, ActivityItem] => [entry, event]) : sightsOf(event, listening, byId),
  );
}

/** Each receiver's item of one event, from the blueprints it names (`byId`, absent: gone). */
function sightsOf<V>(event: ActivityEvent, listening: ReadonlyMap<string, V>, byId: ReadonlyMap<string, GuardRow>): Array<[V, ActivityItem]> {
  const blueprint = byId.get(event.blueprintId);
  const forkId = event.kind === 'forked' ? event.subjectId : null;
  let withoutFork: ActivityEvent | null = null;
  const items: Array<[V, ActivityItem]> = [];
  for (const [receiver, entry] of listening) {
    const principal = receiver.slice(receiver.indexOf(' ') + 1) || null;
    // A proposal event is about its source too: receivers who may not read the source never hear of it.
    if (event.sourceId !== undefined && !readable(byId.get(event.sourceId), principal)) continue;
    if (!readable(blueprint, principal)) items.push([entry, notFound('blueprint', event.blueprintId)]);
    // A FORKED event names the fork: a private fork of a public blueprint is not the receiver's to know.
    else if (forkId && !readable(byId.get(forkId), principal)) items.push([entry, (withoutFork ??= { ...event, subjectId: null })]);
    else items.push([entry, event]);
  }
  return items;
}

export const activityLive: DurableTopic<'blueprint.activity', ActivityItem> = {
  name: 'activity',
  topic: 'blueprint.activity',

  receiversOf(event, listening) {
    const prefix = `${event.blueprintId} `;
    const out: string[] = [];
    for (const receiver of listening.keys()) if (receiver.startsWith(prefix)) out.push(receiver);
    return out;
  },

  async read(em: EntityManager, event, listening) {
    return (await readActivity(em, [{ event, listening }]))[0]!;
  },

  readBatch: readActivity,

  // Every item is already this receiver's sight of the event; an error ends its stream.
  visibleToAll: (item) => !(item instanceof AppError),
  sight: async (_ctx, item) => item,

  frames: activityEncoderFor,
};

/** The fields of `BlueprintActivity` the direct path writes: the event's own; the others run the resolvers. */
const readers: Readers = {
  BlueprintActivity: {
    kind: (l) => (l as ActivityEvent).kind,
    blueprintId: (l) => (l as ActivityEvent).blueprintId,
    subjectId: (l) => (l as ActivityEvent).subjectId,
  },
};

/**
 * Encodes the `next` payloads of one `blueprintActivity` selection of the event's own fields (see
 * `readers`). All the listeners of an instance who may see an event share the same item, so the payload
 * is encoded once per event and selection and written to each of their sockets.
 */
export class ActivityEventEncoder implements FrameEncoder<ActivityItem> {
  private lastItem: ActivityItem | null = null;
  private lastPayload: string | null = null;

  constructor(
    private readonly prefix: string,
    private readonly plans: FieldPlan[],
  ) {}

  encode(item: ActivityItem): string | null {
    if (item instanceof AppError) return null;
    if (item !== this.lastItem) {
      const body = encodeObject(this.plans, item);
      this.lastItem = item;
      this.lastPayload = body === FALL_BACK ? null : `${this.prefix}${body.slice(1)}}}`;
    }
    return this.lastPayload;
  }
}

const encoders = new WeakMap<object, ActivityEventEncoder | null>();

/** The encoder of this subscription's selection, or null; shared by the sockets that sent the same document. */
export function activityEncoderFor(info: GraphQLResolveInfo): ActivityEventEncoder | null {
  const node = info.fieldNodes.length === 1 ? info.fieldNodes[0]! : null;
  if (!node) return null;
  if (encoders.has(node)) return encoders.get(node)!;
  const root = rootPlanOf(readers, info);
  const encoder = root ? new ActivityEventEncoder(root.prefix, root.plans) : null;
  encoders.set(node, encoder);
  return encoder;
}

/** The activity of blueprint `blueprintId` (already found readable) as the viewer may see it, live. */
export function activityStream(ctx: RequestContext, blueprintId: string, info?: GraphQLResolveInfo): Promise<AsyncIterableIterator<ActivityItem | StreamEnd>> {
  return durableStream(ctx, activityLive, receiverOf(blueprintId, ctx.viewer?.principalId ?? null), null, info);
}
