import type { AreaModule } from '../platform/area';
import { proposalMcpTools } from './proposal.mcp';
import { BlueprintProposalsResolver, ProposalActivityResolver, ProposalCommentResolver, ProposalResolver } from './proposal.resolver';
import { proposalRoutes } from './proposal.routes';

/** The proposals area (docs/proposals.md): everything it adds to the app. */
export const proposalsModule: AreaModule = {
  name: 'proposals',
  resolvers: [BlueprintProposalsResolver, ProposalResolver, ProposalCommentResolver, ProposalActivityResolver],
  routes: proposalRoutes,
  mcpTools: proposalMcpTools,
};
