import { Arg, Ctx, Field, FieldResolver, ID, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { ViewerType } from '../auth/auth.resolver';
import { Principal } from '../auth/principal.entity';
import { principalsById } from '../auth/principal.loaders';
import type { RequestContext } from '../platform/context';
import { LazyConnection } from '../platform/graphql/graphql-connection';
import { pageFromConnectionArgs } from '../platform/pagination';
import { teamAnalytics, type TeamAnalytics } from './analytics.service';
import type { AuditEntry } from './audit.service';
import { deleteTeam, listMyTeams, teamAuditLog, updateTeam } from './team-lifecycle.service';
import { Team, TeamRole } from './team.entity';
import { addTeamMember, createTeam, getTeam, removeTeamMember, teamMembers, updateTeamMember, viewerRoleIn } from './team.service';
import { TeamAnalyticsType, TeamAuditEntryConnection } from './team.types';
import { orNull } from '../platform/graphql/or-null';

@ObjectType('TeamMember', { simpleResolvers: true })
class TeamMemberType {
  @Field(() => Principal) principal!: Principal;
  @Field(() => TeamRole) role!: TeamRole;
  @Field(() => Date) joinedAt!: Date;
}

@Resolver(() => Team)
export class TeamResolver {
  @Query(() => Team, { nullable: true, description: 'A team the caller belongs to; null otherwise.' })
  async team(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<Team | null> {
    return orNull(getTeam(ctx, id));
  }

  @FieldResolver(() => [TeamMemberType], { description: 'Owner first, then admins, members and viewers.' })
  async members(@Root() team: Team, @Ctx() ctx: RequestContext): Promise<TeamMemberType[]> {
    const members = await teamMembers(ctx, team.id);
    const principals = await principalsById(
      ctx,
      members.map((m) => m.principalId),
    );
    return members.map((m, i) => ({ principal: principals[i] as Principal, role: m.role, joinedAt: m.joinedAt }));
  }

  @FieldResolver(() => TeamRole, { nullable: true, description: "The caller's role in this team." })
  viewerRole(@Root() team: Team, @Ctx() ctx: RequestContext): Promise<TeamRole | null> {
    return viewerRoleIn(ctx, team.id);
  }

  @FieldResolver(() => TeamAuditEntryConnection, {
    description: 'Changes to the team, newest first; optionally of one action. Owner, admin and member (a viewer gets FORBIDDEN).',
  })
  auditLog(
    @Root() team: Team,
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string,
    @Arg('action', () => String, { nullable: true }) action?: string,
  ): LazyConnection<AuditEntry> {
    const page = pageFromConnectionArgs({ first, after }, ctx.config.limits);
    return new LazyConnection(page, () => teamAuditLog(ctx, team.id, page, action ?? null));
  }

  @FieldResolver(() => TeamAnalyticsType, { description: 'Activity of the team over the last windowDays UTC days (1-365), any role.' })
  analytics(
    @Root() team: Team,
    @Ctx() ctx: RequestContext,
    @Arg('windowDays', () => Int, { nullable: true, defaultValue: 30 }) windowDays: number,
  ): Promise<TeamAnalytics> {
    return teamAnalytics(ctx, team.id, windowDays);
  }

  @Mutation(() => Team, { description: 'Renames the team and/or replaces its conventions (owner or admin).' })
  updateTeam(
    @Ctx() ctx: RequestContext,
    @Arg('id', () => ID) id: string,
    @Arg('name', () => String, { nullable: true }) name?: string,
    @Arg('conventions', () => String, { nullable: true }) conventions?: string,
  ): Promise<Team> {
    const body: Record<string, string> = {};
    if (name !== undefined && name !== null) body.name = name;
    if (conventions !== undefined && conventions !== null) body.conventions = conventions;
    return updateTeam(ctx, id, body);
  }

  @Mutation(() => Boolean, { description: 'Deletes the team (owner only); CONFLICT while it holds blueprints or architectures.' })
  async deleteTeam(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<boolean> {
    await deleteTeam(ctx, id);
    return true;
  }

  @Mutation(() => Team, { description: 'Creates a team; the caller becomes its owner.' })
  createTeam(@Ctx() ctx: RequestContext, @Arg('name', () => String) name: string): Promise<Team> {
    return createTeam(ctx, { name });
  }

  @Mutation(() => Team, { description: 'Adds a member as admin, member or viewer (team owner or admin only).' })
  addTeamMember(
    @Ctx() ctx: RequestContext,
    @Arg('teamId', () => ID) teamId: string,
    @Arg('principalId', () => ID) principalId: string,
    @Arg('role', () => TeamRole) role: TeamRole,
  ): Promise<Team> {
    return addTeamMember(ctx, teamId, { principal_id: principalId, role });
  }

  @Mutation(() => Team, { description: "Changes a member's role (owner or admin); role OWNER hands ownership over (owner only)." })
  updateTeamMember(
    @Ctx() ctx: RequestContext,
    @Arg('teamId', () => ID) teamId: string,
    @Arg('principalId', () => ID) principalId: string,
    @Arg('role', () => TeamRole) role: TeamRole,
  ): Promise<Team> {
    return updateTeamMember(ctx, teamId, principalId, { role });
  }

  @Mutation(() => Team, { nullable: true, description: 'Removes a member (owner or admin), or leaves the team (own id); null when the caller left.' })
  removeTeamMember(
    @Ctx() ctx: RequestContext,
    @Arg('teamId', () => ID) teamId: string,
    @Arg('principalId', () => ID) principalId: string,
  ): Promise<Team | null> {
    return removeTeamMember(ctx, teamId, principalId);
  }
}

@Resolver(() => ViewerType)
export class ViewerTeamsResolver {
  @FieldResolver(() => [Team], { description: 'Every team the caller belongs to (any role), oldest membership first; each shows viewerRole.' })
  async teams(@Ctx() ctx: RequestContext): Promise<Team[]> {
    const { items } = await listMyTeams(ctx, { limit: 10_000, offset: 0 });
    return items.map((s) => s.team);
  }
}
