import type { AreaModule } from '../platform/area';
import { oauthRoutes } from './oauth.routes';

/** The OAuth 2.1 authorization server MCP clients sign in through (docs/mcp.md). */
export const oauthModule: AreaModule = {
  name: 'oauth',
  routes: oauthRoutes,
};
