import { insertBlueprint } from '../../blueprints/blueprint.service';
import { Visibility } from '../../blueprints/blueprint.entity';
import { moduleFromWire, stepFromWire, type JsonObject, type Plan, type PlanModule, type PlanStep, type WireModule, type WireStep } from '../../plans/plan';
import { freeObjectSchema, moduleSchema, stepSchema } from '../../plans/plan.schema';
import { planIssues } from '../../plans/plan.validation';
import { invalidAll } from '../../platform/errors';
import type { ToolContext, ToolDefinition } from '../tool-definition';
import { descriptionField, nameField, withDefault } from '../../platform/field-schemas';
import { tagsField, visibilityField } from '../../blueprints/blueprint.contract';
import { actorOf, recordAudit } from '../../teams/audit.service';
import { lockTeamForEditor } from '../../teams/transfer.service';

interface CreateParams {
  description?: string;
  language?: string;
  framework?: string;
}

interface CreateState {
  modules?: PlanModule[];
  steps?: PlanStep[];
  configuration?: JsonObject;
  designSystem?: JsonObject;
}

type Ctx = ToolContext<CreateParams, CreateState>;

/**
 * Plan rules checked as soon as the step that can break them is submitted, with submission paths. The size
 * bound is checked at every step, so the submission that makes the plan too big is the one refused (the
 * earlier steps cannot be redone).
 */
function assertPartialPlan(c: Ctx, section: 'modules' | 'steps' | 'configuration' | 'design_system'): void {
  const plan: Plan = {
    modules: c.state.modules ?? [],
    steps: c.state.steps ?? [],
    configuration: c.state.configuration ?? {},
    designSystem: c.state.designSystem ?? {},
  };
  const issues = planIssues(plan, c.ctx.config.limits)
    .filter((i) => i.path === '' || i.path.startsWith(section))
    .map((i) => ({ ...i, path: i.path === '' ? `submission/${section}` : `submission/${i.path}` }));
  if (issues.length > 0) throw invalidAll(issues);
}

/** The state after a step, checked against the plan rules that step can break. */
function checked(c: Ctx, section: Parameters<typeof assertPartialPlan>[1], state: CreateState): CreateState {
  assertPartialPlan({ ...c, state }, section);
  return state;
}

function brief(c: Ctx): string {
  const p = c.params;
  return [
    p.description ? `What to build: ${p.description}` : 'What to build: (no description given; choose a coherent small system)',
    p.language ? `Target language: ${p.language}` : null,
    p.framework ? `Target framework: ${p.framework}` : null,
  ]
    .filter(Boolean)
    .join('\n');
}

function moduleList(c: Ctx): string {
  return (c.state.modules ?? [])
    .map((m) => `- ${m.key} (${m.kind}): ${m.name}${m.dependsOn.length ? ` — depends on ${m.dependsOn.join(', ')}` : ''}`)
    .join('\n');
}

/** The `create` tool: exactly five submissions (docs/api.md), then a new blueprint and its version 1. */
export const createTool: ToolDefinition<CreateParams, CreateState> = {
  type: 'create',
  summary: 'Design a new blueprint in five steps: modules, steps, configuration, design system, then name and visibility.',
  sources: { min: 0, max: 0 },
  sourceAccess: 'read',
  output: 'new',
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      description: { type: 'string', maxLength: 10_000 },
      language: { type: 'string', maxLength: 100 },
      framework: { type: 'string', maxLength: 100 },
    },
  },
  initialState: () => ({}),
  steps: () => [
    {
      title: 'Modules',
      prompt: (c) =>
        `${brief(c)}\n\nStep 1 of 5: list the modules of the system. Each module has a unique kebab-case key, a name, a one-paragraph summary, a kind (one lowercase word such as frontend, backend, service, data, infra) and the keys of the modules it depends on. Dependencies must not form a cycle.`,
      submissionSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['modules'],
        properties: { modules: { type: 'array', minItems: 1, items: moduleSchema } },
      },
      accept: (c, s: { modules: WireModule[] }) => checked(c, 'modules', { ...c.state, modules: s.modules.map(moduleFromWire) }),
    },
    {
      title: 'Steps',
      prompt: (c) =>
        `${brief(c)}\n\nModules:\n${moduleList(c)}\n\nStep 2 of 5: write the build steps in the order they should run. Each step has a unique kebab-case key, the key of the module it builds, a title, instructions for the agent who will execute it, and acceptance checks (strings) that tell when it is done.`,
      submissionSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['steps'],
        properties: { steps: { type: 'array', minItems: 1, items: stepSchema } },
      },
      accept: (c, s: { steps: WireStep[] }) => checked(c, 'steps', { ...c.state, steps: s.steps.map(stepFromWire) }),
    },
    {
      title: 'Configuration',
      prompt: (c) =>
        `${brief(c)}\n\nStep 3 of 5: give the configuration as a JSON object (language, framework, runtime, database, environment variables, ...). The language and framework of the request are filled in unless you set them.`,
      submissionSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['configuration'],
        properties: { configuration: freeObjectSchema },
      },
      accept: (c, s: { configuration: JsonObject }) => {
        const base: JsonObject = {};
        if (c.params.language) base.language = c.params.language;
        if (c.params.framework) base.framework = c.params.framework;
        return checked(c, 'configuration', { ...c.state, configuration: { ...base, ...s.configuration } });
      },
    },
    {
      title: 'Design system',
      prompt: (c) =>
        `${brief(c)}\n\nStep 4 of 5: describe the design system as a JSON object (colours, typography, spacing, components, tone). Use {} for a system with no user interface.`,
      submissionSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['design_system'],
        properties: { design_system: freeObjectSchema },
      },
      accept: (c, s: { design_system: JsonObject }) => checked(c, 'design_system', { ...c.state, designSystem: s.design_system }),
    },
    {
      title: 'Name and visibility',
      prompt: (c) =>
        `${brief(c)}\n\nStep 5 of 5: name the blueprint, describe it in a few sentences, tag it (e.g. saas, e-commerce, api, cli, dashboard) and choose its visibility: public (listed in the registry, forkable by anyone) or private. To create it directly in one of your teams (where you are owner, admin or member), give its team_id; its members then share it and its executions follow the team's conventions.`,
      submissionSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'visibility'],
        properties: {
          name: nameField,
          description: withDefault(descriptionField, ''),
          tags: withDefault(tagsField, []),
          visibility: visibilityField,
          team_id: { type: ['string', 'null'], pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' },
        },
      },
      accept: async (c, s: { team_id?: string | null }) => {
        // Checked here, so a team the caller may not fill is refused while the step can still be redone.
        if (s.team_id) await lockTeamForEditor(c.tx, s.team_id, c.operation.principal.id);
        return { ...c.state, final: s } as CreateState;
      },
    },
  ],
  async finish(c) {
    const final = (c.state as { final: { name: string; description: string; tags: string[]; visibility: Visibility; team_id?: string | null } }).final;
    // Checked again in the finishing transaction, with the team row locked until it commits.
    const teamId = final.team_id ? final.team_id.toLowerCase() : null;
    if (teamId) await lockTeamForEditor(c.tx, teamId, c.operation.principal.id);
    const plan: Plan = {
      modules: c.state.modules ?? [],
      steps: c.state.steps ?? [],
      configuration: c.state.configuration ?? {},
      designSystem: c.state.designSystem ?? {},
    };
    const bp = await insertBlueprint(
      c.tx,
      c.ctx,
      c.operation.principal.id,
      { name: final.name.trim(), description: final.description, tags: final.tags, visibility: final.visibility, plan, teamId },
      'create',
      { operation_id: c.operation.id, modules_added: plan.modules.map((m) => m.key), steps_added: plan.steps.map((s) => s.key) },
    );
    if (teamId)
      await recordAudit(c.tx, {
        teamId,
        actor: actorOf(c.ctx),
        action: 'blueprint.created',
        targetType: 'blueprint',
        targetId: bp.id,
        details: { tool_type: 'create', operation_id: c.operation.id },
      });
    return { blueprint_ids: [bp.id], blueprint: { id: bp.id, slug: bp.slug, name: bp.name } };
  },
};
