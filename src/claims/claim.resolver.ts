import { Arg, Ctx, Field, ID, Int, Mutation, ObjectType, Resolver } from 'type-graphql';
import type { RequestContext } from '../platform/context';
import { claimAgentSession, type ClaimResult } from './claim.service';

@ObjectType('ClaimResult', { simpleResolvers: true, description: "What moved from the agent session to the caller's account." })
class ClaimResultType {
  @Field(() => ID) agentSessionId!: string;
  @Field(() => Int) blueprints!: number;
  @Field(() => Int) architectures!: number;
  @Field(() => Int) runs!: number;
  @Field(() => Int) operations!: number;
}

@Resolver()
export class ClaimResolver {
  @Mutation(() => ClaimResultType, { description: "Takes over a live agent session's blueprints, architectures, runs and operations; the session is revoked." })
  claimAgentSession(@Ctx() ctx: RequestContext, @Arg('agentToken', () => String) agentToken: string): Promise<ClaimResult> {
    return claimAgentSession(ctx, { agent_token: agentToken });
  }
}
