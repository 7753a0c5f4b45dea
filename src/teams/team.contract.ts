import { nameField } from '../platform/field-schemas';
import {
  arrayOf,
  dateTime,
  errors,
  freeObject,
  int,
  noContent,
  nullable,
  num,
  obj,
  page,
  pageQuerySchema,
  serviceChecked,
  str,
  uuid,
} from '../platform/contract';
import { idParam } from '../platform/http/routes';
import { TeamRole } from './team.entity';

const tags = ['teams'];
const role = { type: 'string', enum: Object.values(TeamRole) };

/** Conventions are prompt text: bounded so that every execution prompt of the team stays reasonable. */
export const MAX_CONVENTIONS_LENGTH = 20_000;

/**
 * What the team operations take, checked by the services (after authentication and access) and advertised
 * as the REST bodies and the MCP tools' arguments.
 */
const principalIdField = { ...uuid, description: 'The member: a user or agent session id.' };
export const teamInputs = {
  create: obj({ name: nameField }),
  update: { ...obj({ name: nameField, conventions: { type: 'string', maxLength: MAX_CONVENTIONS_LENGTH } }, ['name', 'conventions']), minProperties: 1 },
  addMember: obj({ principal_id: principalIdField, role }),
  /** The member a member operation names (a path parameter over REST). */
  principalId: { principal_id: principalIdField },
  updateMember: obj({ role }),
  /** Moving a blueprint or an architecture into a team, between teams, or out of its team (null). */
  transfer: obj({ team_id: { type: ['string', 'null'], format: 'uuid', description: 'The receiving team, or null to move it out.' } }),
};
const memberParams = {
  type: 'object',
  required: ['id', 'principalId'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 200 }, principalId: { type: 'string', minLength: 1, maxLength: 200 } },
};

export const teamBodySchema = obj({
  id: uuid,
  name: str,
  conventions: str,
  viewer_role: nullable(role),
  members: arrayOf(obj({ principal_id: uuid, kind: { type: 'string', enum: ['user', 'agent'] }, name: str, role, joined_at: dateTime })),
  created_at: dateTime,
  updated_at: dateTime,
});

const teamListItem = obj({
  id: uuid,
  name: str,
  conventions: str,
  role,
  member_count: int,
  blueprint_count: int,
  architecture_count: int,
  created_at: dateTime,
  updated_at: dateTime,
});
const auditEntry = obj({ id: uuid, at: dateTime, actor: obj({ id: uuid, name: str }), action: str, target_type: str, target_id: str, details: freeObject });
const counts = {
  blueprints_created: int,
  forks: int,
  stars_received: int,
  executions_started: int,
  executions_completed: int,
  executions_failed: int,
  executions_abandoned: int,
  success_rate: nullable(num),
};
const analyticsBody = obj({
  team_id: uuid,
  window_days: int,
  from: str,
  to: str,
  totals: obj(counts),
  days: arrayOf(obj({ day: str, ...counts })),
  top_blueprints: arrayOf(obj({ id: uuid, slug: str, name: str, forks: int, stars: int, executions_started: int, activity: int })),
});

export const teamContract = {
  list: { summary: "The caller's teams with their role, oldest membership first", tags, querystring: pageQuerySchema, response: { 200: page(teamListItem) } },
  update: {
    summary: 'Rename a team or change its conventions (owner and admins)',
    tags,
    params: idParam('id'),
    body: serviceChecked(teamInputs.update),
    response: { 200: teamBodySchema, ...errors(403) },
  },
  remove: {
    summary: 'Delete a team (owner); 409 while it still holds blueprints or architectures',
    tags,
    params: idParam('id'),
    response: { 204: noContent, ...errors(403, 409) },
  },
  audit: {
    summary: 'The append-only audit log, newest first (owner, admins, members)',
    tags,
    params: idParam('id'),
    querystring: { type: 'object', properties: { ...(pageQuerySchema.properties as object), action: { type: 'string', description: 'only this action' } } },
    response: { 200: page(auditEntry), ...errors(403) },
  },
  analytics: {
    summary: 'Team activity per day and its top blueprints (members)',
    tags,
    params: idParam('id'),
    querystring: { type: 'object', properties: { window_days: { type: 'string', description: 'days back (an integer)' } } },
    response: { 200: analyticsBody },
  },
  create: { summary: 'Create a team; the caller is its owner', tags, body: serviceChecked(teamInputs.create), response: { 201: teamBodySchema } },
  get: { summary: 'A team with its members (members only)', tags, params: idParam('id'), response: { 200: teamBodySchema } },
  addMember: {
    summary: 'Add a member (owner and admins)',
    tags,
    params: idParam('id'),
    body: serviceChecked(teamInputs.addMember),
    response: { 201: teamBodySchema, ...errors(403, 409) },
  },
  updateMember: {
    summary: "Change a member's role (owner and admins)",
    tags,
    params: memberParams,
    body: serviceChecked(teamInputs.updateMember),
    response: { 200: teamBodySchema, ...errors(403) },
  },
  removeMember: { summary: 'Remove a member (owner and admins; a member may leave)', tags, params: memberParams, response: { 204: noContent, ...errors(403) } },
};
