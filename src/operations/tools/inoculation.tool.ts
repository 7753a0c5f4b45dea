import { cloneJson } from '../../plans/algebra';
import { stepFromWire, type Plan, type PlanStep, type WireStep } from '../../plans/plan';
import { stepSchema } from '../../plans/plan.schema';
import { invalid } from '../../platform/errors';
import { outlineModules, outlineSteps } from '../plan-outline';
import { inplaceBase, writeInplace, type InplaceState } from '../tool-output.inplace';
import type { ToolDefinition } from '../tool-definition';

/** Concerns a hardening step can address; the first three must each be covered. */
const concerns = ['authn', 'authz', 'input_validation', 'secrets', 'transport', 'dependencies', 'logging', 'rate_limiting'] as const;
const requiredConcerns = ['authn', 'input_validation', 'secrets'] as const;

type HardeningStep = WireStep & { concern: (typeof concerns)[number]; after?: string };

interface InoculationState extends InplaceState {
  added?: Array<{ step: PlanStep; concern: string; after: string | null }>;
}

const secretLike = /(secret|token|password|passwd|api[_-]?key|private[_-]?key|credential)/i;

/** Where the server sees an attack surface: modules by kind and configuration keys that look like secrets. */
function surface(plan: Plan): string {
  const exposed = plan.modules.filter((m) => /^(frontend|backend|api|service|gateway|web|mobile|auth)$/.test(m.kind)).map((m) => m.key);
  const secrets: string[] = [];
  const walk = (o: unknown, path: string) => {
    if (o === null || typeof o !== 'object' || Array.isArray(o)) return;
    for (const [k, v] of Object.entries(o)) {
      const p = path ? `${path}.${k}` : k;
      if (secretLike.test(k)) secrets.push(p);
      walk(v, p);
    }
  };
  walk(plan.configuration, 'configuration');
  return [
    `Modules facing users or other systems: ${exposed.join(', ') || '(none detected by kind)'}`,
    `Configuration keys that look like secrets: ${secrets.join(', ') || '(none)'}`,
  ].join('\n');
}

/** `inoculation`: security hardening steps (authentication, input validation, secrets...) added to a blueprint. */
export const inoculationTool: ToolDefinition<Record<string, never>, InoculationState> = {
  type: 'inoculation',
  summary: 'Adds security hardening steps (authentication, input validation, secrets handling) to a blueprint (a new version).',
  sources: { min: 1, max: 1 },
  sourceAccess: 'edit',
  output: 'inplace',
  paramsSchema: { type: 'object', additionalProperties: false, properties: {} },
  initialState: (c) => inplaceBase(c),
  steps: () => [
    {
      title: 'Add hardening steps',
      prompt: (c) => {
        const plan = c.sources[0]!.plan;
        return `Blueprint "${c.sources[0]!.name}".\n\nModules:\n${outlineModules(plan)}\n\nSteps (run order):\n${outlineSteps(plan)}\n\n${surface(plan)}\n\nStep 1 of 1: write new build steps that harden this system. Each has a new unique kebab-case key, the module it belongs to, a title, instructions, at least one verifiable acceptance check, and the concern it addresses (${concerns.join(', ')}); together they must cover ${requiredConcerns.join(', ')}. A step goes right after the step named in "after" (an existing step or one of yours given earlier), or by default after the last step of its module.`;
      },
      submissionSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['steps'],
        properties: {
          steps: {
            type: 'array',
            minItems: requiredConcerns.length,
            maxItems: 200,
            items: {
              ...stepSchema,
              required: [...(stepSchema.required as string[]), 'acceptance', 'concern'],
              properties: {
                ...(stepSchema.properties as Record<string, unknown>),
                acceptance: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1, maxLength: 2000 } },
                concern: { type: 'string', enum: [...concerns] },
                after: { type: 'string', maxLength: 100 },
              },
            },
          },
        },
      },
      accept: (c, s: { steps: HardeningStep[] }) => {
        const plan = c.sources[0]!.plan;
        const modules = new Set(plan.modules.map((m) => m.key));
        const keys = new Set(plan.steps.map((st) => st.key));
        const added: NonNullable<InoculationState['added']> = [];
        s.steps.forEach((st, i) => {
          if (keys.has(st.key)) throw invalid(`submission/steps/${i}/key`, `is already a step key: "${st.key}"`);
          if (!modules.has(st.module_key)) throw invalid(`submission/steps/${i}/module_key`, `names no module: "${st.module_key}"`);
          if (st.after !== undefined && !keys.has(st.after)) throw invalid(`submission/steps/${i}/after`, `names no step before it: "${st.after}"`);
          keys.add(st.key);
          added.push({ step: stepFromWire(st), concern: st.concern, after: st.after ?? null });
        });
        const missing = requiredConcerns.filter((k) => !s.steps.some((st) => st.concern === k));
        if (missing.length > 0) throw invalid('submission/steps', `must cover the concerns ${missing.join(', ')}`);
        return { ...c.state, added };
      },
    },
  ],
  finish: (c) =>
    writeInplace(c, (bp) => {
      const plan = cloneJson(bp.plan);
      for (const { step, after } of c.state.added ?? []) {
        let at: number;
        if (after !== null) at = plan.steps.findIndex((s) => s.key === after) + 1;
        else {
          const last = plan.steps.map((s) => s.moduleKey).lastIndexOf(step.moduleKey);
          at = last === -1 ? plan.steps.length : last + 1;
        }
        // An `after` step that vanished meanwhile cannot happen (the version guard), but stay total.
        plan.steps.splice(at <= 0 ? plan.steps.length : at, 0, cloneJson(step));
      }
      return { plan, details: { hardening: (c.state.added ?? []).map((a) => ({ step_key: a.step.key, concern: a.concern })) } };
    }),
};
