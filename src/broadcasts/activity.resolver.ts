import { Arg, Ctx, Field, FieldResolver, ID, Int, ObjectType, Resolver, Root, Subscription, registerEnumType } from 'type-graphql';
import { Principal } from '../auth/principal.entity';
import { canRead, guardOf } from '../blueprints/access';
import { Blueprint } from '../blueprints/blueprint.entity';
import { blueprintLoaders } from '../blueprints/blueprint.loaders';
import { BlueprintActivityKind } from '../blueprints/blueprint.events';
import { getBlueprint } from '../blueprints/blueprint.service';
import { ChangelogEntry } from '../changelog/changelog-entry.entity';
import { changelogEntryById } from '../changelog/changelog.service';
import type { RequestContext } from '../platform/context';
import { AppError, notFound } from '../platform/errors';
import { assertConnectionAuthorized, StreamEnd, unlessEnded } from '../platform/live/live';
import { principalById } from '../auth/principal.loaders';
import { startEvent } from '../platform/http/request-context';
import { activityStream, type ActivityItem } from './activity-live';

registerEnumType(BlueprintActivityKind, { name: 'BlueprintActivityKind', description: 'What happened to a blueprint.' });

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

@Resolver(() => BlueprintActivity)
export class BlueprintActivityResolver {
  @Subscription(() => BlueprintActivity, {
    description:
      'Activity on a blueprint the caller may read (anonymous callers: public ones). Access is re-checked for every event: when the blueprint goes out of sight the stream ends with NOT_FOUND.',
    subscribe: async ({ args, context, info }) => {
      const ctx = context as RequestContext;
      await assertConnectionAuthorized(ctx);
      const bp = await getBlueprint(ctx, args.id as string); // 404 before anything is sent
      // Each event is resolved once per instance for all its listeners (activity-live.ts).
      return activityStream(ctx, bp.id, info);
    },
  })
  blueprintActivity(@Root() payload: ActivityItem | StreamEnd, @Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): BlueprintActivity {
    // The hub names the blueprint by its id; the error names only what the caller sent (docs/limits.md).
    if (payload instanceof StreamEnd && payload.error.code === 'NOT_FOUND') throw notFound('blueprint', id);
    const event = unlessEnded(payload);
    if (event instanceof AppError) throw event; // the engine ends the stream with it before it gets here
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
