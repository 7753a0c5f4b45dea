import { Arg, Ctx, Field, ID, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { Public } from '../platform/access-policy';
import type { RequestContext } from '../platform/context';
import { createAgentSession } from './auth.service';
import { PrincipalKind } from './principal.entity';

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
