import type { GraphQLResolveInfo } from 'graphql';
import { Public } from '../platform/graphql/access-policy';
import { Arg, Ctx, Field, FieldResolver, ID, Info, Int, Mutation, ObjectType, Query, Resolver, Root, Subscription } from 'type-graphql';
import { Principal } from '../auth/principal.entity';
import { principalById } from '../auth/principal.loaders';
import { viewerTeamRoles } from '../blueprints/access';
import type { RequestContext } from '../platform/context';
import type { EventTopics } from '../platform/live/events';
import { notFound, type AppError } from '../platform/errors';
import { orNull } from '../platform/graphql/or-null';
import { assertConnectionAuthorized, unlessEnded, type StreamEnd } from '../platform/live/live';
import { liveStream } from '../platform/live/live-feed';
import { LazyConnection, selectedFields } from '../platform/graphql/graphql-connection';
import { pageFromConnectionArgs } from '../platform/pagination';
import { Team } from '../teams/team.entity';
import { teamById } from '../teams/team.service';
import { addEdge, addNode, removeEdge, removeNode, updateLayout } from './architecture-edit.service';
import { exportArchitecture, ExportFormatEnum } from './export';
import {
  architectureView,
  canEditArchitecture,
  canReadArchitecture,
  edgesOf,
  findArchitecture,
  getArchitecture,
  nodesOf,
  type ArchitectureRecord,
  type BlueprintCard,
  type EdgeView,
  type GraphNeed,
  type NodeView,
} from './architecture.read';
import { createArchitecture, listOwnedArchitectures, listPublicArchitectures, listTeamArchitectures, transferArchitecture } from './architecture.service';
import {
  AddArchitectureEdgeInput,
  AddArchitectureNodeInput,
  ArchitectureChangeKindEnum,
  ArchitectureConnection,
  ArchitectureEdgeType,
  ArchitectureNodeType,
  ArchitectureType,
  BlueprintCardType,
  CreateArchitectureInput,
  LayoutEntryInput,
  TeamArchitectureConnection,
  UserArchitectureConnection,
} from './architecture.types';
import { startEvent } from '../platform/http/request-context';

@ObjectType('ArchitectureChange', { simpleResolvers: true, description: 'One change of an architecture, with the architecture as it now is.' })
class ArchitectureChangeType {
  @Field(() => ArchitectureChangeKindEnum) kind!: ArchitectureChangeKindEnum;
  @Field(() => ID, { nullable: true, description: 'The node or edge added or removed, or the receiving team of a transfer (null unless the caller is in it).' })
  subjectId!: string | null;
  /** Who made the change: read by the `actor` field, only when it is selected. */
  actorId!: string | null;
  @Field(() => ArchitectureType) architecture!: ArchitectureRecord;
}

/** A delivered change: the event as the subscriber may see it, and the architecture as read for this event. */
type SeenChange = EventTopics['architecture.changed'] & { current: ArchitectureRecord };

@Resolver(() => ArchitectureChangeType)
export class ArchitectureChangeResolver {
  @FieldResolver(() => Principal, { nullable: true, description: 'Who made the change.' })
  actor(@Root() change: ArchitectureChangeType, @Ctx() ctx: RequestContext): Promise<Principal | null> {
    return change.actorId ? principalById(ctx, change.actorId) : Promise.resolve(null);
  }
}

/** Plain objects with the GraphQL field names, so edges resolve without per-field resolver wrappers. */
function toEdgeType(e: EdgeView): ArchitectureEdgeType {
  return { id: e.id, source: e.sourceNodeId, target: e.targetNodeId, edgeType: e.edgeType, label: e.label, computed: e.computed };
}

/**
 * What the selection under `architecture` reads of the graph, so the architecture's statement brings it:
 * `edges` and `export` need nodes and edges, `nodes` and `node` the nodes (a field skipped by a directive
 * still counts, which only costs the unused columns).
 */
function graphNeedOf(info: GraphQLResolveInfo): GraphNeed {
  const fields = selectedFields(info);
  return fields.has('edges') || fields.has('export') ? 'edges' : fields.has('nodes') || fields.has('node') ? 'nodes' : 'none';
}

@Resolver(() => ArchitectureType)
export class ArchitectureResolver {
  @Public()
  @Query(() => ArchitectureType, { nullable: true, description: 'One architecture by slug; null when missing or private to others.' })
  architecture(@Ctx() ctx: RequestContext, @Arg('slug', () => String) slug: string, @Info() info: GraphQLResolveInfo): Promise<ArchitectureRecord | null> {
    return orNull(getArchitecture(ctx, slug, graphNeedOf(info)));
  }

  @Public()
  @Query(() => ArchitectureConnection, { description: 'Public architectures, newest first (no authentication needed).' })
  architectures(
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): LazyConnection<ArchitectureRecord> {
    const page = pageFromConnectionArgs({ first, after }, ctx.config.limits);
    return new LazyConnection(page, () => listPublicArchitectures(ctx, page));
  }

  @FieldResolver(() => Principal)
  async owner(@Root() arch: ArchitectureRecord, @Ctx() ctx: RequestContext): Promise<Principal> {
    return (await principalById(ctx, arch.ownerId))!;
  }

  @FieldResolver(() => Team, { nullable: true, description: 'The team it belongs to, when the caller is a member of it.' })
  async team(@Root() arch: ArchitectureRecord, @Ctx() ctx: RequestContext): Promise<Team | null> {
    if (arch.teamId === null || !(await viewerTeamRoles(ctx)).has(arch.teamId)) return null;
    return teamById(ctx, arch.teamId);
  }

  @FieldResolver(() => [ArchitectureNodeType], { description: 'Nodes in the order they were added.' })
  nodes(@Root() arch: ArchitectureRecord, @Ctx() ctx: RequestContext): Promise<NodeView[]> {
    return nodesOf(ctx, arch);
  }

  @FieldResolver(() => ArchitectureNodeType, { nullable: true })
  async node(@Root() arch: ArchitectureRecord, @Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<NodeView | null> {
    return (await nodesOf(ctx, arch)).find((n) => n.id === id.toLowerCase()) ?? null;
  }

  @FieldResolver(() => [ArchitectureEdgeType], {
    description: 'Manual edges in the order drawn, then computed lineage edges between nodes the caller may read.',
  })
  async edges(@Root() arch: ArchitectureRecord, @Ctx() ctx: RequestContext): Promise<ArchitectureEdgeType[]> {
    return (await edgesOf(ctx, arch)).map(toEdgeType);
  }

  @FieldResolver(() => String, { description: 'The diagram as text (GET /api/architectures/:slug/export): redacted nodes stay redacted.' })
  async export(@Root() arch: ArchitectureRecord, @Ctx() ctx: RequestContext, @Arg('format', () => ExportFormatEnum) format: ExportFormatEnum): Promise<string> {
    return exportArchitecture(await architectureView(ctx, arch), format as `${ExportFormatEnum}`);
  }

  @FieldResolver(() => Boolean, { description: 'Whether the caller may add, move and remove nodes and edges.' })
  viewerCanEdit(@Root() arch: ArchitectureRecord, @Ctx() ctx: RequestContext): Promise<boolean> {
    return canEditArchitecture(ctx, arch);
  }

  @Mutation(() => ArchitectureType)
  createArchitecture(@Ctx() ctx: RequestContext, @Arg('input', () => CreateArchitectureInput) input: CreateArchitectureInput): Promise<ArchitectureRecord> {
    return createArchitecture(ctx, {
      name: input.name,
      visibility: input.visibility,
      ...(input.description != null ? { description: input.description } : {}),
    });
  }

  @Mutation(() => ArchitectureNodeType, { description: 'Adds a blueprint the caller may read as a node; without a position it goes to a free grid cell.' })
  addArchitectureNode(
    @Ctx() ctx: RequestContext,
    @Arg('slug', () => String) slug: string,
    @Arg('input', () => AddArchitectureNodeInput) input: AddArchitectureNodeInput,
  ): Promise<NodeView> {
    return addNode(ctx, slug, { blueprint_id: input.blueprintId, ...(input.position ? { position_x: input.position.x, position_y: input.position.y } : {}) });
  }

  @Mutation(() => ArchitectureEdgeType, { description: 'Adds a manual edge; lineage edge types are FORBIDDEN (they are computed).' })
  async addArchitectureEdge(
    @Ctx() ctx: RequestContext,
    @Arg('slug', () => String) slug: string,
    @Arg('input', () => AddArchitectureEdgeInput) input: AddArchitectureEdgeInput,
  ): Promise<ArchitectureEdgeType> {
    return toEdgeType(
      await addEdge(ctx, slug, {
        source_node_id: input.sourceNodeId,
        target_node_id: input.targetNodeId,
        edge_type: input.edgeType,
        label: input.label ?? null,
      }),
    );
  }

  @Mutation(() => ArchitectureType, { description: 'Removes a node and every edge touching it.' })
  async removeArchitectureNode(
    @Ctx() ctx: RequestContext,
    @Arg('slug', () => String) slug: string,
    @Arg('nodeId', () => ID) nodeId: string,
  ): Promise<ArchitectureRecord> {
    await removeNode(ctx, slug, nodeId);
    return getArchitecture(ctx, slug);
  }

  @Mutation(() => ArchitectureType, { description: 'Removes a manual edge; lineage edges are FORBIDDEN.' })
  async removeArchitectureEdge(
    @Ctx() ctx: RequestContext,
    @Arg('slug', () => String) slug: string,
    @Arg('edgeId', () => ID) edgeId: string,
  ): Promise<ArchitectureRecord> {
    await removeEdge(ctx, slug, edgeId);
    return getArchitecture(ctx, slug);
  }

  @Mutation(() => ArchitectureType, { description: 'Moves several nodes at once, all or nothing.' })
  async updateArchitectureLayout(
    @Ctx() ctx: RequestContext,
    @Arg('slug', () => String) slug: string,
    @Arg('layout', () => [LayoutEntryInput]) layout: LayoutEntryInput[],
  ): Promise<ArchitectureRecord> {
    await updateLayout(
      ctx,
      slug,
      layout.map((e) => ({ nodeId: e.nodeId, position: { x: e.position.x, y: e.position.y } })),
    );
    return getArchitecture(ctx, slug);
  }

  @Mutation(() => ArchitectureType, {
    description:
      'Moves the architecture into a team (its owner, who is an owner, admin or member there) or out of its team (teamId null; the team owner only).',
  })
  transferArchitecture(
    @Ctx() ctx: RequestContext,
    @Arg('slug', () => String) slug: string,
    @Arg('teamId', () => ID, { nullable: true }) teamId: string | null,
  ): Promise<ArchitectureRecord> {
    return transferArchitecture(ctx, slug, { team_id: teamId ?? null });
  }

  @Public()
  @Subscription(() => ArchitectureChangeType, {
    description: 'Every node, edge, layout and transfer change of an architecture the caller may read.',
    subscribe: async ({ args, context }) => {
      const ctx = context as RequestContext;
      await assertConnectionAuthorized(ctx);
      const slug = args.slug as string;
      const arch = await getArchitecture(ctx, slug); // private to others: NOT_FOUND before anything is sent
      // Re-read for every event: a transfer or a visibility change can end the subscriber's access, and the
      // stream then ends with NOT_FOUND (a revoked token ends it with UNAUTHENTICATED, in liveStream).
      return liveStream(
        ctx,
        ctx.events.subscribe('architecture.changed'),
        (event) => event.architectureId === arch.id,
        async (event): Promise<SeenChange | AppError> => {
          startEvent(ctx);
          // The architecture as it is after the event (each subscriber reads its own: a read shared by all of
          // them released every subscriber's work at once when it returned, one long turn for the whole fan-out).
          const current = await findArchitecture(ctx, arch.slug);
          if (!current || !(await canReadArchitecture(ctx, current))) return notFound('architecture', slug);
          // An event names only what the receiver may read: a transfer's receiving team is named to its members only.
          if (event.change === 'transferred' && event.subjectId !== null && !(await viewerTeamRoles(ctx)).has(event.subjectId))
            return { ...event, subjectId: null, current };
          return { ...event, current };
        },
      );
    },
  })
  architectureChanged(@Root() payload: SeenChange | StreamEnd, @Ctx() ctx: RequestContext, @Arg('slug', () => String) _slug: string): ArchitectureChangeType {
    const event = unlessEnded(payload);
    startEvent(ctx);
    // The architecture its sight was decided on (read for this event, above); the actor only when selected.
    return { kind: event.change as ArchitectureChangeKindEnum, subjectId: event.subjectId, actorId: event.actorId, architecture: event.current };
  }
}

@Resolver(() => Team)
export class TeamArchitecturesResolver {
  @FieldResolver(() => TeamArchitectureConnection, { description: "The team's architectures, newest first." })
  architectures(
    @Root() team: Team,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): LazyConnection<ArchitectureRecord> {
    const page = pageFromConnectionArgs({ first, after }, ctx.config.limits);
    return new LazyConnection(page, () => listTeamArchitectures(ctx, team.id, page));
  }
}

@Resolver(() => Principal)
export class PrincipalArchitecturesResolver {
  @FieldResolver(() => UserArchitectureConnection, {
    description: "This principal's architectures, newest first: public ones, and to the principal themself private ones too.",
  })
  architectures(
    @Root() owner: Principal,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
  ): LazyConnection<ArchitectureRecord> {
    const page = pageFromConnectionArgs({ first, after }, ctx.config.limits);
    return new LazyConnection(page, () => listOwnedArchitectures(ctx, owner.id, page));
  }
}

@Resolver(() => BlueprintCardType)
export class BlueprintCardOwnerResolver {
  @FieldResolver(() => Principal, { description: "The blueprint's owner: forks often share their parent's name." })
  async owner(@Root() card: BlueprintCard, @Ctx() ctx: RequestContext): Promise<Principal> {
    return (await principalById(ctx, card.ownerId))!;
  }
}
