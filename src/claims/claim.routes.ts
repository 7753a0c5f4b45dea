import { requestContext } from '../platform/http/http';
import type { RouteModule } from '../platform/http/routes';
import { claimContract } from './claim.contract';
import { claimAgentSession } from './claim.service';
import { toClaimBody } from './claim.wire';

/** A person claims an agent session's work; the body is checked by the service. */
export const claimRoutes: RouteModule = (app, deps) => {
  app.post('/api/account/claim', { schema: claimContract.claim }, async (request) =>
    toClaimBody(await claimAgentSession(await requestContext(request, deps), request.body)),
  );
};
