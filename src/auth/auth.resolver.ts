import { Arg, Ctx, Field, ID, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { Public } from '../platform/graphql/access-policy';
import type { RequestContext } from '../platform/context';
import { createAgentSession, requireViewer } from './auth.service';
import { AppError } from '../platform/errors';
import { Principal, PrincipalKind } from './principal.entity';
import { personByUsername } from './profile.service';

@ObjectType('AgentSession', { simpleResolvers: true })
class AgentSession {
  @Field(() => String, { description: 'Send as `Authorization: Bearer <token>`.' }) token!: string;
  @Field(() => ID) sessionId!: string;
  @Field(() => Date) expiresAt!: Date;
}

@ObjectType('Viewer', { simpleResolvers: true, description: 'The caller behind the bearer token.' })
export class ViewerType {
  @Field(() => ID) id!: string;
  @Field(() => PrincipalKind) kind!: PrincipalKind;
  @Field(() => String) name!: string;
}

@Resolver()
export class AuthResolver {
  @Query(() => ViewerType, { nullable: true, description: 'The caller; null when anonymous.' })
  viewer(@Ctx() ctx: RequestContext): ViewerType | null {
    return ctx.viewer ? { id: ctx.viewer.principalId, kind: ctx.viewer.kind as PrincipalKind, name: ctx.viewer.name } : null;
  }

  @Public()
  @Mutation(() => AgentSession, { description: 'Self-provisions an agent session; needs no authentication.' })
  async createAgentSession(@Ctx() ctx: RequestContext, @Arg('name', () => String, { nullable: true }) name?: string): Promise<AgentSession> {
    const s = await createAgentSession(ctx.em, ctx.config.limits, name ?? undefined);
    return { token: s.token, sessionId: s.sessionId, expiresAt: s.expiresAt };
  }
}

@Resolver()
export class ProfileResolver {
  @Query(() => Principal, {
    nullable: true,
    description:
      'A person by username, for their page: their `blueprints` and `architectures` (public ones; to themself, private ones too). Null when there is no such person.',
  })
  async user(@Ctx() ctx: RequestContext, @Arg('username', () => String) username: string): Promise<Principal | null> {
    // Signed-in callers only, as the registry: the public blueprints listed here are readable to them alone.
    requireViewer(ctx);
    try {
      return await personByUsername(ctx, username);
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND') return null;
      throw err;
    }
  }
}
