import { Arg, Ctx, Field, FieldResolver, ID, Int, Mutation, ObjectType, Resolver, registerEnumType } from 'type-graphql';
import { Public } from '../platform/graphql/access-policy';
import type { RequestContext } from '../platform/context';
import { TokenScope } from './access-token.entity';
import { signIn, signOut, signUp, type SignedIn } from './account.service';
import { createAccessToken, listAccessTokens, revokeAccessToken, type AccountToken } from './account-token.service';
import { ViewerType } from './auth.resolver';

registerEnumType(TokenScope, { name: 'TokenScope', description: '`READ` tokens are refused on every write.' });

@ObjectType('SignInPayload', { simpleResolvers: true, description: 'A sign-in token (`bws_`, 14 days); send it as `Authorization: Bearer <token>`.' })
class SignInPayload {
  @Field(() => ID) userId!: string;
  @Field(() => String) username!: string;
  @Field(() => String) token!: string;
  @Field(() => Date) expiresAt!: Date;
}

@ObjectType('AccessToken', { simpleResolvers: true, description: "One of the account's tokens (the MCP setup page); never the secret." })
class AccessTokenType {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => TokenScope) scope!: TokenScope;
  @Field(() => String, { description: 'The first characters of the token, to tell tokens apart.' }) prefix!: string;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date, { nullable: true }) expiresAt!: Date | null;
  @Field(() => Date, { nullable: true }) lastUsedAt!: Date | null;
}

@ObjectType('CreatedAccessToken', { simpleResolvers: true, description: 'A new account token; `token` is shown this once.' })
class CreatedAccessToken extends AccessTokenType {
  @Field(() => String) token!: string;
}

const signedIn = (s: SignedIn): SignInPayload => ({ userId: s.userId, username: s.username, token: s.token, expiresAt: s.expiresAt });
const tokenType = (t: AccountToken): AccessTokenType => ({ ...t });

@Resolver(() => ViewerType)
export class AccountResolver {
  @FieldResolver(() => [AccessTokenType], { description: "The signed-in person's live account tokens, newest first (agent sessions: FORBIDDEN)." })
  async tokens(@Ctx() ctx: RequestContext): Promise<AccessTokenType[]> {
    const { items } = await listAccessTokens(ctx, { limit: ctx.config.limits.pageMax, offset: 0 });
    return items.map(tokenType);
  }

  @Public()
  @Mutation(() => SignInPayload, { description: 'Creates an account (username `[a-z0-9-]{3,40}`, password 12-200 characters) and signs in.' })
  async signUp(
    @Ctx() ctx: RequestContext,
    @Arg('username', () => String) username: string,
    @Arg('password', () => String) password: string,
  ): Promise<SignInPayload> {
    return signedIn(await signUp(ctx, { username, password }));
  }

  @Public()
  @Mutation(() => SignInPayload, { description: 'Signs in; wrong credentials are UNAUTHENTICATED, too many failures RATE_LIMITED.' })
  async signIn(
    @Ctx() ctx: RequestContext,
    @Arg('username', () => String) username: string,
    @Arg('password', () => String) password: string,
  ): Promise<SignInPayload> {
    return signedIn(await signIn(ctx, { username, password }));
  }

  @Mutation(() => Boolean, { description: 'Revokes the sign-in token this request presented.' })
  async signOut(@Ctx() ctx: RequestContext): Promise<boolean> {
    await signOut(ctx);
    return true;
  }

  @Mutation(() => CreatedAccessToken, { description: 'Mints an account token (for an MCP client); without `expiresInDays` it lasts until revoked.' })
  async createAccessToken(
    @Ctx() ctx: RequestContext,
    @Arg('name', () => String) name: string,
    @Arg('scope', () => TokenScope) scope: TokenScope,
    @Arg('expiresInDays', () => Int, { nullable: true }) expiresInDays?: number | null,
  ): Promise<CreatedAccessToken> {
    return { ...(await createAccessToken(ctx, { name, scope, ...(expiresInDays == null ? {} : { expires_in_days: expiresInDays }) })) };
  }

  @Mutation(() => Boolean, { description: 'Revokes one of the account tokens at once (HTTP, WebSocket at the next event, MCP).' })
  async revokeAccessToken(@Ctx() ctx: RequestContext, @Arg('id', () => ID) id: string): Promise<boolean> {
    await revokeAccessToken(ctx, id);
    return true;
  }
}
