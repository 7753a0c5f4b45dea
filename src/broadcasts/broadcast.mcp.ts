import { args, argsOf, idArg, pageArgs } from '../platform/contract';
import { mcpTool } from '../platform/mcp-tool';
import { broadcastContract, broadcastInput } from './broadcast.contract';
import { sendBroadcast } from './broadcast.service';
import { inboxPageBody, subscriptionBody, toInboxBody, toSentBroadcastBody } from './broadcast.wire';
import { markInboxRead } from './inbox.service';

const inboxItemSchema = broadcastContract.markRead.response[200];
const blueprintId = { blueprint_id: idArg('A blueprint id (UUID) or slug.') };

/** Broadcasts, subscriptions and the inbox as MCP tools: the same services and bodies as their REST routes. */
export const broadcastMcpTools = [
  mcpTool<{ blueprint_id: string; message: string; type: string; severity: string }>({
    name: 'broadcast_send',
    description:
      'Send a broadcast about a blueprint you own to the owners of its direct forks and its subscribers (each once, never you). Answers the broadcast and recipient_count. Same body as POST /api/blueprints/:id/broadcasts.',
    input: (limits) => argsOf(blueprintId, broadcastInput(limits)),
    output: broadcastContract.send.response[201],
    readOnly: false,
    handler: async (ctx, { blueprint_id, ...fields }) => toSentBroadcastBody(await sendBroadcast(ctx, blueprint_id, fields)),
  }),
  mcpTool<{ blueprint_id: string }>({
    name: 'broadcast_subscribe',
    description: "Subscribe to a blueprint's broadcasts (they arrive in your inbox). Same body as POST /api/blueprints/:id/subscription.",
    input: args(blueprintId, ['blueprint_id']),
    output: broadcastContract.subscription.response[200],
    readOnly: false,
    idempotent: true,
    handler: (ctx, a) => subscriptionBody(ctx, a.blueprint_id, true),
  }),
  mcpTool<{ blueprint_id: string }>({
    name: 'broadcast_unsubscribe',
    description: "Stop receiving a blueprint's broadcasts. Same body as DELETE /api/blueprints/:id/subscription.",
    input: args(blueprintId, ['blueprint_id']),
    output: broadcastContract.subscription.response[200],
    readOnly: false,
    destructive: true,
    idempotent: true,
    handler: (ctx, a) => subscriptionBody(ctx, a.blueprint_id, false),
  }),
  mcpTool<{ unread?: boolean; limit?: number; offset?: number }>({
    name: 'inbox_list',
    description: 'Your broadcast inbox, newest first (unread: true for unread only). Same body as GET /api/inbox.',
    input: args({ unread: { type: 'boolean', default: false }, ...pageArgs }),
    output: broadcastContract.inbox.response[200],
    readOnly: true,
    handler: (ctx, a) => inboxPageBody(ctx, a),
  }),
  mcpTool<{ delivery_id: string }>({
    name: 'inbox_mark_read',
    description: 'Mark one inbox item read (its id is the delivery id). Same body as POST /api/inbox/:deliveryId/read.',
    input: args({ delivery_id: idArg('The inbox item id.') }, ['delivery_id']),
    output: inboxItemSchema,
    readOnly: false,
    idempotent: true,
    handler: async (ctx, a) => toInboxBody(await markInboxRead(ctx, a.delivery_id)),
  }),
];
