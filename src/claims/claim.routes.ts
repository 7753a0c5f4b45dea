import { requestContext } from '../platform/http';
import type { RouteModule } from '../platform/routes';
import { claimSchemas } from './claim.schemas';
import { claimAgentSession } from './claim.service';
import { toClaimBody } from './claim.wire';

/** A person claims an agent session's work; the body is checked by the service. */
export const claimRoutes: RouteModule = (app, deps) => {
  app.post('/api/account/claim', { schema: claimSchemas.claim }, async (request) =>
    toClaimBody(await claimAgentSession(await requestContext(request, deps), request.body)),
  );
};
