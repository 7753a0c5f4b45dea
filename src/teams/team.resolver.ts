import { Arg, Ctx, Field, FieldResolver, ID, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { Principal } from '../auth/principal.entity';
import { principalsById } from '../auth/principal.loaders';
import type { RequestContext } from '../platform/context';
import { Team, TeamRole } from './team.entity';
import { addTeamMember, createTeam, getTeam, removeTeamMember, teamMembers, updateTeamMember, viewerRoleIn } from './team.service';
import { orNull } from '../platform/or-null';

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
    const principals = await principalsById(ctx, members.map((m) => m.principalId));
    return members.map((m, i) => ({ principal: principals[i] as Principal, role: m.role, joinedAt: m.joinedAt }));
  }

  @FieldResolver(() => TeamRole, { nullable: true, description: "The caller's role in this team." })
  viewerRole(@Root() team: Team, @Ctx() ctx: RequestContext): Promise<TeamRole | null> {
    return viewerRoleIn(ctx, team.id);
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
  removeTeamMember(@Ctx() ctx: RequestContext, @Arg('teamId', () => ID) teamId: string, @Arg('principalId', () => ID) principalId: string): Promise<Team | null> {
    return removeTeamMember(ctx, teamId, principalId);
  }
}
