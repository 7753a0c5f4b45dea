import DataLoader from 'dataloader';
import { Arg, Ctx, Field, FieldResolver, ID, Int, ObjectType, Resolver, Root, Subscription, registerEnumType } from 'type-graphql';
import { Principal } from '../auth/principal.entity';
import { canRead, canReadWith, guardOf, type Guarded } from '../blueprints/access';
import { Blueprint } from '../blueprints/blueprint.entity';
import { blueprintLoaders } from '../blueprints/blueprint.loaders';
import { BlueprintActivityKind } from '../blueprints/blueprint.events';
import { getBlueprint } from '../blueprints/blueprint.service';
import { ChangelogEntry } from '../changelog/changelog-entry.entity';
import { changelogEntryById } from '../changelog/changelog.service';
import type { RequestContext } from '../platform/context';
import { notFound } from '../platform/errors';
import type { EventTopics } from '../platform/live/events';
import { assertConnectionAuthorized, instanceScoped, unlessEnded, type StreamEnd } from '../platform/live/live';
import { liveStream } from '../platform/live/live-feed';
import type { TeamRole } from '../teams/team.entity';
import { principalById } from '../auth/principal.loaders';
import { startEvent } from '../platform/http/request-context';

registerEnumType(BlueprintActivityKind, { name: 'BlueprintActivityKind', description: 'What happened to a blueprint.' });

type ActivityEvent = EventTopics['blueprint.activity'];

@ObjectType('BlueprintActivity', {
  simpleResolvers: true,
  description: 'Something that happened to a blueprint: a fork, a star, a new version or changelog entry.',
})
export class BlueprintActivity {
  @Field(() => BlueprintActivityKind) kind!: BlueprintActivityKind;
  @Field(() => ID) blueprintId!: string;
  @Field(() => ID, { nullable: true, description: 'The fork, starring principal, version or changelog entry it is about.' }) subjectId!: string | null;
  actorId!: string;
}

/**
 * Whether the viewer may read a blueprint right now: a fresh read for every event (a blueprint can turn
 * private), batched across all subscribers of this instance through uncached, instance-wide loaders.
 */
async function readableNow(ctx: RequestContext, blueprintId: string): Promise<boolean> {
  const guards = instanceScoped(
    ctx,
    'activity.guards',
    (em) =>
      new DataLoader<string, Guarded | null>(
        async (ids) => {
          const rows: Array<{ id: string; visibility: string; owner_id: string; team_id: string | null }> = await em.execute(
            'select id, visibility, owner_id, team_id from blueprint where id = any(?::uuid[])',
            [`{${ids.join(',')}}`],
          );
          const byId = new Map(rows.map((r) => [r.id, { visibility: r.visibility, ownerId: r.owner_id, teamId: r.team_id }]));
          return ids.map((id) => byId.get(id) ?? null);
        },
        { cache: false },
      ),
  );
  const guard = await guards.load(blueprintId);
  if (!guard) return false;
  if (guard.teamId === null || !ctx.viewer) return canReadWith(ctx.viewer, new Map(), guard);
  const roles = instanceScoped(
    ctx,
    'activity.teamRoles',
    (em) =>
      new DataLoader<string, Map<string, TeamRole>>(
        async (principalIds) => {
          const rows: Array<{ principal_id: string; team_id: string; role: TeamRole }> = await em.execute(
            'select principal_id, team_id, role from team_member where principal_id = any(?::uuid[])',
            [`{${principalIds.join(',')}}`],
          );
          const byPrincipal = new Map<string, Map<string, TeamRole>>(principalIds.map((p) => [p, new Map()]));
          for (const r of rows) byPrincipal.get(r.principal_id)!.set(r.team_id, r.role);
          return principalIds.map((p) => byPrincipal.get(p)!);
        },
        { cache: false },
      ),
  );
  return canReadWith(ctx.viewer, await roles.load(ctx.viewer.principalId), guard);
}

@Resolver(() => BlueprintActivity)
export class BlueprintActivityResolver {
  @Subscription(() => BlueprintActivity, {
    description:
      'Activity on a blueprint the caller may read (anonymous callers: public ones). Access is re-checked for every event: when the blueprint goes out of sight the stream ends with NOT_FOUND.',
    subscribe: async ({ args, context }) => {
      const ctx = context as RequestContext;
      await assertConnectionAuthorized(ctx);
      const bp = await getBlueprint(ctx, args.id as string); // 404 before anything is sent
      return liveStream(
        ctx,
        // A proposal event is about its source too: receivers who may not read the source never hear of it.
        filterAsync(ctx.events.subscribe('blueprint.activity'), async (event) =>
          event.blueprintId !== bp.id || event.sourceId === undefined ? true : readableNow(ctx, event.sourceId),
        ),
        (event) => event.blueprintId === bp.id,
        async (event) => {
          if (!(await readableNow(ctx, bp.id))) return notFound('blueprint', args.id as string);
          // A FORKED event names the fork: a private fork of a public blueprint is not the receiver's to know.
          if (event.kind === 'forked' && event.subjectId !== null && !(await readableNow(ctx, event.subjectId))) return { ...event, subjectId: null };
          return event;
        },
      );
    },
  })
  blueprintActivity(@Root() payload: ActivityEvent | StreamEnd, @Ctx() ctx: RequestContext, @Arg('id', () => ID) _id: string): BlueprintActivity {
    const event = unlessEnded(payload);
    startEvent(ctx);
    return { kind: event.kind as BlueprintActivityKind, blueprintId: event.blueprintId, subjectId: event.subjectId, actorId: event.actorId };
  }

  @FieldResolver(() => Blueprint, { nullable: true, description: 'The blueprint, as it is after the activity.' })
  async blueprint(@Root() a: BlueprintActivity, @Ctx() ctx: RequestContext): Promise<Blueprint | null> {
    const bp = await blueprintLoaders(ctx).byId.load(a.blueprintId);
    return bp && (await canRead(ctx, guardOf(bp))) ? bp : null;
  }

  @FieldResolver(() => Principal, { nullable: true, description: 'Who did it.' })
  actor(@Root() a: BlueprintActivity, @Ctx() ctx: RequestContext): Promise<Principal | null> {
    return principalById(ctx, a.actorId);
  }

  @FieldResolver(() => Blueprint, { nullable: true, description: 'FORKED: the new fork, when the caller may see it.' })
  async fork(@Root() a: BlueprintActivity, @Ctx() ctx: RequestContext): Promise<Blueprint | null> {
    if (a.kind !== BlueprintActivityKind.FORKED || !a.subjectId) return null;
    const bp = await blueprintLoaders(ctx).byId.load(a.subjectId);
    return bp && (await canRead(ctx, guardOf(bp))) ? bp : null;
  }

  @FieldResolver(() => ChangelogEntry, { nullable: true, description: 'CHANGELOG: the entry published.' })
  async changelogEntry(@Root() a: BlueprintActivity, @Ctx() ctx: RequestContext): Promise<ChangelogEntry | null> {
    if (a.kind !== BlueprintActivityKind.CHANGELOG || !a.subjectId) return null;
    return changelogEntryById(ctx, a.subjectId);
  }

  @FieldResolver(() => Int, { nullable: true, description: 'VERSION: the new version number.' })
  async versionNumber(@Root() a: BlueprintActivity, @Ctx() ctx: RequestContext): Promise<number | null> {
    if (a.kind !== BlueprintActivityKind.VERSION || !a.subjectId) return null;
    const rows: Array<{ number: number }> = await ctx.em.execute('select number from blueprint_version where id = ?', [a.subjectId]);
    return rows[0]?.number ?? null;
  }
}

/**
 * The events of `source` that `keep` accepts. Returning the iterator releases `source` at once, even while
 * a `next` is waiting (a generator would hold it until the next event came).
 */
function filterAsync<T>(source: AsyncIterable<T>, keep: (event: T) => Promise<boolean>): AsyncIterable<T> {
  const it = source[Symbol.asyncIterator]();
  return {
    [Symbol.asyncIterator]: () => ({
      async next(): Promise<IteratorResult<T>> {
        for (;;) {
          const n = await it.next();
          if (n.done || (await keep(n.value))) return n;
        }
      },
      async return(value?: unknown): Promise<IteratorResult<T>> {
        await it.return?.();
        return { done: true, value: value as T };
      },
    }),
  };
}
