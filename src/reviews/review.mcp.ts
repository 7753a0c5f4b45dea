import { args, argsOf, bool, idArg, obj, pageArgs, str } from '../platform/contract';
import { mcpTool } from '../platform/mcp-tool';
import { reviewContract, reviewInputs } from './review.contract';
import { deleteMyReview, reviewBlueprint, updateMyReview } from './review.service';
import { reviewsPageBody, toReviewBody } from './review.wire';

const reviewSchema = reviewContract.create.response[201];
const blueprintId = { blueprint_id: idArg('A blueprint id (UUID) or slug.') };

/** Reviews as MCP tools: the same services and bodies as `/api/blueprints/:id/reviews`. */
export const reviewMcpTools = [
  mcpTool<{ blueprint_id: string; limit?: number; offset?: number }>({
    name: 'review_list',
    description: "A blueprint's reviews, newest first. Same body as GET /api/blueprints/:id/reviews.",
    input: args({ ...blueprintId, ...pageArgs }, ['blueprint_id']),
    output: reviewContract.list.response[200],
    readOnly: true,
    handler: (ctx, a) => reviewsPageBody(ctx, a.blueprint_id, a),
  }),
  mcpTool<{ blueprint_id: string; rating: number; body: string }>({
    name: 'review_create',
    description: 'Review a blueprint you may read (one review each; not your own). Same body as POST /api/blueprints/:id/reviews.',
    input: argsOf(blueprintId, reviewInputs.create),
    output: reviewSchema,
    readOnly: false,
    handler: async (ctx, { blueprint_id, ...fields }) => toReviewBody(await reviewBlueprint(ctx, blueprint_id, fields)),
  }),
  mcpTool<{ blueprint_id: string; rating?: number; body?: string }>({
    name: 'review_update',
    description: 'Change the rating and/or text of your review of a blueprint. Same body as PATCH /api/blueprints/:id/reviews/mine.',
    input: argsOf(blueprintId, reviewInputs.update),
    output: reviewSchema,
    readOnly: false,
    idempotent: true,
    handler: async (ctx, { blueprint_id, ...fields }) => toReviewBody(await updateMyReview(ctx, blueprint_id, fields)),
  }),
  mcpTool<{ blueprint_id: string }>({
    name: 'review_delete',
    description: 'Delete your review of a blueprint. REST answers 204: DELETE /api/blueprints/:id/reviews/mine. Answers {blueprint_id, deleted: true}.',
    input: args(blueprintId, ['blueprint_id']),
    output: obj({ blueprint_id: str, deleted: bool }),
    readOnly: false,
    destructive: true,
    handler: async (ctx, a) => {
      await deleteMyReview(ctx, a.blueprint_id);
      return { blueprint_id: a.blueprint_id, deleted: true };
    },
  }),
];
