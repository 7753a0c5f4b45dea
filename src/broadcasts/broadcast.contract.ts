import { bool, dateTime, errors, int, nullable, obj, page, serviceChecked, str, uuid } from '../platform/contract';
import { defaultLimits, type Limits } from '../platform/config';
import { idParam } from '../platform/http/routes';
import { BroadcastSeverity, BroadcastType } from './broadcast.entity';

const tags = ['broadcasts'];

const broadcastProps = {
  id: uuid,
  source_blueprint_id: { ...nullable(uuid), description: 'null once the blueprint is deleted (delivered broadcasts stay)' },
  message: str,
  type: { type: 'string', enum: Object.values(BroadcastType) },
  severity: { type: 'string', enum: Object.values(BroadcastSeverity) },
  created_at: dateTime,
};
export const inboxItemSchema = obj({
  id: { type: 'string', description: 'the delivery id: a number, ordered per recipient (the cursor of `broadcastReceived(after:)`)' },
  read_at: nullable(dateTime),
  broadcast: obj(broadcastProps),
});

/** What sending takes, with the configured bound: checked by the service, advertised (default bound) over REST and MCP. */
export const broadcastInput = (limits: Pick<Limits, 'broadcastMessageMax'>) =>
  obj({
    message: { type: 'string', minLength: 1, maxLength: limits.broadcastMessageMax, pattern: '\\S' },
    type: { type: 'string', enum: Object.values(BroadcastType) },
    severity: { type: 'string', enum: Object.values(BroadcastSeverity) },
  });

export const broadcastContract = {
  send: {
    summary: "Send a broadcast to the owners of the blueprint's direct forks and its subscribers (owner)",
    tags,
    params: idParam('id'),
    body: serviceChecked(broadcastInput(defaultLimits)),
    response: { 201: obj({ ...broadcastProps, recipient_count: int }), ...errors(403) },
  },
  subscription: {
    summary: "Subscribe (POST) to or unsubscribe (DELETE) from a blueprint's broadcasts; idempotent",
    tags,
    params: idParam('id'),
    response: { 200: obj({ blueprint_id: uuid, subscribed: bool }) },
  },
  inbox: {
    summary: "The caller's broadcasts, newest first",
    tags,
    querystring: {
      type: 'object',
      properties: { unread: { type: 'string', description: '`true`: unread only' }, limit: { type: 'string' }, offset: { type: 'string' } },
    },
    response: { 200: page(inboxItemSchema) },
  },
  markRead: { summary: 'Mark one inbox item read', tags, params: idParam('deliveryId'), response: { 200: inboxItemSchema } },
};
