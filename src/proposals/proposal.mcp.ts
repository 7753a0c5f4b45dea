import { args, argsOf, idArg, pageArgs } from '../platform/contract';
import { mcpTool } from '../platform/mcp-tool';
import { commentInput, mergeInput, openInput, proposalContract } from './proposal.contract';
import { commentOnProposal, mergeProposal, setProposalOpen } from './proposal-actions.service';
import { getProposal, openProposal } from './proposal.service';
import { commentListBody, proposalListBody, toCommentBody, toProposalBody } from './proposal.wire';

const target = { blueprint_id: idArg('The target blueprint (the ancestor proposed to): id (UUID) or slug.') };
const number = { number: { type: 'integer', minimum: 1, maximum: 999_999_999, description: 'The proposal number (1, 2, ... per target).' } };
const proposalOut = proposalContract.get.response[200];
const commentOut = proposalContract.comment.response[201];

/** Proposals as MCP tools: the same services and bodies as `/api/blueprints/:id/proposals[...]`. */
export const proposalMcpTools = [
  mcpTool<{ blueprint_id: string; source_blueprint_id: string; title: string; body?: string }>({
    name: 'proposal_open',
    description:
      'Propose the changes of a blueprint you own or edit (source: a fork or breed child of the target, any depth) to that ancestor (target). The target owner reviews them per module and step. Same body as POST /api/blueprints/:id/proposals.',
    input: argsOf(target, openInput),
    output: proposalOut,
    readOnly: false,
    handler: async (ctx, { blueprint_id, ...body }) => toProposalBody(await openProposal(ctx, blueprint_id, body)),
  }),
  mcpTool<{ blueprint_id: string; state?: string; limit?: number; offset?: number }>({
    name: 'proposal_list',
    description: 'Proposals to a blueprint, newest first, with changes and conflicts. Same body as GET /api/blueprints/:id/proposals.',
    input: args({ ...target, state: { type: 'string', enum: ['open', 'merged', 'closed', 'all'], default: 'open' }, ...pageArgs }, ['blueprint_id']),
    output: proposalContract.list.response[200],
    readOnly: true,
    handler: (ctx, { blueprint_id, ...query }) => proposalListBody(ctx, blueprint_id, query),
  }),
  mcpTool<{ blueprint_id: string; number: number }>({
    name: 'proposal_get',
    description:
      'One proposal: what the source changed per module and step since the fork point, and the conflicts with the target (base, ours, theirs), computed against both current plans. Same body as GET /api/blueprints/:id/proposals/:number.',
    input: args({ ...target, ...number }, ['blueprint_id', 'number']),
    output: proposalOut,
    readOnly: true,
    handler: async (ctx, a) => toProposalBody(await getProposal(ctx, a.blueprint_id, a.number)),
  }),
  mcpTool<{ blueprint_id: string; number: number; body: string; module_key?: string; step_key?: string }>({
    name: 'proposal_comment',
    description: 'Comment on a proposal, optionally anchored to a module or a step. Same body as POST /api/blueprints/:id/proposals/:number/comments.',
    input: argsOf({ ...target, ...number }, commentInput),
    output: commentOut,
    readOnly: false,
    handler: async (ctx, { blueprint_id, number: n, ...body }) => toCommentBody(await commentOnProposal(ctx, blueprint_id, n, body)),
  }),
  mcpTool<{ blueprint_id: string; number: number; limit?: number; offset?: number }>({
    name: 'proposal_comments',
    description: "A proposal's comments, oldest first. Same body as GET /api/blueprints/:id/proposals/:number/comments.",
    input: args({ ...target, ...number, ...pageArgs }, ['blueprint_id', 'number']),
    output: proposalContract.comments.response[200],
    readOnly: true,
    handler: (ctx, { blueprint_id, number: n, ...query }) => commentListBody(ctx, blueprint_id, n, query),
  }),
  mcpTool<{ blueprint_id: string; number: number; resolutions?: unknown[] }>({
    name: 'proposal_merge',
    description:
      'Merge a proposal into the target (its owner or a team editor): a three-way merge keeping both sides’ non-conflicting changes; every conflict needs a resolution {kind, key, take: ours|theirs|custom, value?} (CONFLICT lists the unresolved ones, nothing written). Same body as POST /api/blueprints/:id/proposals/:number/merge.',
    input: argsOf({ ...target, ...number }, mergeInput),
    output: proposalOut,
    readOnly: false,
    handler: async (ctx, { blueprint_id, number: n, ...body }) => toProposalBody(await mergeProposal(ctx, blueprint_id, n, body)),
  }),
  mcpTool<{ blueprint_id: string; number: number }>({
    name: 'proposal_close',
    description: 'Close a proposal without merging (its author, or the target owner or a team editor). Same body as POST .../proposals/:number/close.',
    input: args({ ...target, ...number }, ['blueprint_id', 'number']),
    output: proposalOut,
    readOnly: false,
    idempotent: true,
    handler: async (ctx, a) => toProposalBody(await setProposalOpen(ctx, a.blueprint_id, a.number, false)),
  }),
  mcpTool<{ blueprint_id: string; number: number }>({
    name: 'proposal_reopen',
    description: 'Reopen a closed proposal (not a merged one). Same body as POST .../proposals/:number/reopen.',
    input: args({ ...target, ...number }, ['blueprint_id', 'number']),
    output: proposalOut,
    readOnly: false,
    idempotent: true,
    handler: async (ctx, a) => toProposalBody(await setProposalOpen(ctx, a.blueprint_id, a.number, true)),
  }),
];
