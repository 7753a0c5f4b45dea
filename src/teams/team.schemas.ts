import { nameField } from '../platform/field-schemas';
import { arrayOf, dateTime, errors, noContent, nullable, obj, serviceChecked, str, uuid } from '../platform/response-schemas';
import { idParam } from '../platform/routes';
import { TeamRole } from './team.entity';

const tags = ['teams'];
const role = { type: 'string', enum: Object.values(TeamRole) };
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

export const teamSchemas = {
  create: { summary: 'Create a team; the caller is its owner', tags, body: serviceChecked(obj({ name: nameField })), response: { 201: teamBodySchema } },
  get: { summary: 'A team with its members (members only)', tags, params: idParam('id'), response: { 200: teamBodySchema } },
  addMember: {
    summary: 'Add a member (owner and admins)',
    tags,
    params: idParam('id'),
    body: serviceChecked(obj({ principal_id: uuid, role })),
    response: { 201: teamBodySchema, ...errors(403, 409) },
  },
  updateMember: {
    summary: "Change a member's role (owner and admins)",
    tags,
    params: memberParams,
    body: serviceChecked(obj({ role })),
    response: { 200: teamBodySchema, ...errors(403) },
  },
  removeMember: { summary: 'Remove a member (owner and admins; a member may leave)', tags, params: memberParams, response: { 204: noContent, ...errors(403) } },
};
