import { descriptionField, nameField } from '../platform/field-schemas';
import type { JsonSchema } from '../platform/json-schema';
import { idParam } from '../platform/http/routes';
import { teamInputs } from '../teams/team.contract';
import {
  errors,
  arrayOf,
  bool,
  dateTime,
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
  strings,
  uuid,
} from '../platform/contract';

/** Who may see a blueprint (and an architecture): its owner and team only, or everyone. */
export const visibilityField: JsonSchema = { type: 'string', enum: ['public', 'private'] };
/** A tag: lower-case words joined by hyphens (so a tag array needs no quoting as a PostgreSQL literal). */
export const tagField: JsonSchema = { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$', maxLength: 40 };
export const tagsField: JsonSchema = { type: 'array', items: tagField, maxItems: 20, uniqueItems: true };

/** A module of a plan, as REST answers it. */
export const wireModuleSchema = obj({ key: str, name: str, summary: str, kind: str, depends_on: strings });
/** A step of a plan, as REST answers it. */
export const wireStepSchema = obj({ key: str, module_key: str, title: str, instructions: str, acceptance: strings });

/** The card shown in the registry, lineage, proposal and architecture views (`toCard` builds it). */
export const cardSchema = obj({
  id: uuid,
  slug: str,
  name: str,
  stars: int,
  module_count: int,
  step_count: int,
  success_rate: nullable(num),
  review_count: int,
  rating_average: nullable(num),
});

/** The REST blueprint body. */
export const blueprintBodySchema = obj({
  id: uuid,
  slug: str,
  name: str,
  description: str,
  tags: strings,
  visibility: { type: 'string', enum: ['public', 'private'] },
  owner_id: uuid,
  team_id: nullable(uuid),
  forked_from: nullable(obj({ id: uuid, slug: str, name: str })),
  modules: arrayOf(wireModuleSchema),
  steps: arrayOf(wireStepSchema),
  configuration: freeObject,
  design_system: freeObject,
  stars: int,
  forks_count: int,
  module_count: int,
  step_count: int,
  success_rate: nullable(num),
  review_count: int,
  rating_average: nullable(num),
  version: { type: 'integer', description: 'The current version number: the base_version of PUT /api/blueprints/:id/plan' },
  created_at: dateTime,
  updated_at: dateTime,
});

/** An item of `GET /api/teams/:id/blueprints`: the card with owner, team and visibility (`toTeamBlueprintItem`). */
export const teamBlueprintItem = obj({
  ...(cardSchema.properties as Record<string, object>),
  description: str,
  tags: strings,
  visibility: { type: 'string', enum: ['public', 'private'] },
  owner_id: uuid,
  team_id: nullable(uuid),
  forks_count: int,
  created_at: dateTime,
  updated_at: dateTime,
});

/** What the blueprint operations take, checked by the services and advertised as REST bodies and MCP arguments. */
export const blueprintInputs = {
  /** A metadata patch: at least one field; the slug never changes. */
  update: {
    ...obj({ name: nameField, description: descriptionField, tags: tagsField, visibility: visibilityField }, ['name', 'description', 'tags', 'visibility']),
    minProperties: 1,
  },
  transfer: teamInputs.transfer,
};

const tags = ['blueprints'];
// A team's blueprints and moving one between teams are listed with the team endpoints in the reference.
const teamTags = ['teams'];

export const blueprintContract = {
  get: { summary: 'One blueprint, by id or slug', tags, params: idParam('id'), response: { 200: blueprintBodySchema } },
  update: {
    summary: 'Change name, description, tags or visibility (owner and team editors)',
    tags,
    params: idParam('id'),
    body: serviceChecked(blueprintInputs.update),
    response: { 200: blueprintBodySchema, ...errors(403, 409) },
  },
  remove: { summary: 'Delete a blueprint (owner)', tags, params: idParam('id'), response: { 204: noContent, ...errors(403, 409) } },
  star: {
    summary: 'Star (POST) or unstar (DELETE) a blueprint; idempotent',
    tags,
    params: idParam('id'),
    response: { 200: obj({ blueprint_id: uuid, starred: bool, stars: int }) },
  },
  teamBlueprints: {
    summary: "The team's blueprints (members)",
    tags: teamTags,
    params: idParam('id'),
    querystring: pageQuerySchema,
    response: { 200: page(teamBlueprintItem) },
  },
  transfer: {
    summary: 'Move a blueprint into a team, or back to its owner with team_id null (the owner)',
    tags: teamTags,
    params: idParam('id'),
    body: serviceChecked(blueprintInputs.transfer),
    response: { 200: blueprintBodySchema, ...errors(403) },
  },
};
