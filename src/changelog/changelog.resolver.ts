import type { BlueprintView } from '../blueprints/blueprint.view';
import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Resolver, Root } from 'type-graphql';
import { Principal } from '../auth/principal.entity';
import { Blueprint } from '../blueprints/blueprint.entity';
import type { RequestContext } from '../platform/context';
import { LazyConnection, connectionType } from '../platform/graphql/graphql-connection';
import { pageFromConnectionArgs } from '../platform/pagination';
import { ChangelogEntry } from './changelog-entry.entity';
import { changelogOf, publishChangelogEntry, updateChangelogEntry } from './changelog.service';
import { principalById } from '../auth/principal.loaders';

export const ChangelogEntryConnection = connectionType(ChangelogEntry, 'ChangelogEntry');

@Resolver(() => ChangelogEntry)
export class ChangelogEntryResolver {
  @FieldResolver(() => Principal)
  async author(@Root() entry: ChangelogEntry, @Ctx() ctx: RequestContext): Promise<Principal> {
    return (await principalById(ctx, entry.author.id))!;
  }

  @Mutation(() => ChangelogEntry, { description: 'Publishes a changelog entry (owner only). Sends no broadcast by itself.' })
  publishChangelogEntry(
    @Ctx() ctx: RequestContext,
    @Arg('blueprintId', () => ID) blueprintId: string,
    @Arg('title', () => String) title: string,
    @Arg('body', () => String) body: string,
  ): Promise<ChangelogEntry> {
    return publishChangelogEntry(ctx, blueprintId, { title, body });
  }

  @Mutation(() => ChangelogEntry, { description: 'Changes the title and/or body of a changelog entry (owner only).' })
  updateChangelogEntry(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('title', () => String, { nullable: true }) title?: string | null,
    @Arg('body', () => String, { nullable: true }) body?: string | null,
  ): Promise<ChangelogEntry> {
    return updateChangelogEntry(ctx, null, id, { ...(title != null ? { title } : {}), ...(body != null ? { body } : {}) });
  }
}

@Resolver(() => Blueprint)
export class BlueprintChangelogResolver {
  @FieldResolver(() => ChangelogEntryConnection, { description: 'Changelog entries, newest first. Public to read.' })
  changelog(
    @Root() bp: BlueprintView,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): LazyConnection<ChangelogEntry> {
    const page = pageFromConnectionArgs({ first, after }, ctx.config.limits);
    return new LazyConnection(page, () => changelogOf(ctx, bp.id, page));
  }
}
