/**
 * Plans as text for tool prompts: enough for an agent to reason about the plan (keys, kinds,
 * dependencies, run order, acceptance) without the full JSON. The one place a plan is written out for an
 * agent: every tool prompt uses these, so the format an agent learns is the same everywhere.
 */
import type { Blueprint } from '../blueprints/blueprint.entity';
import type { Plan } from '../plans/plan';

export interface OutlineOptions {
  /** Include each step's instructions (tools that rewrite steps need them). */
  instructions?: boolean;
  /** Include configuration and design system as JSON. */
  json?: boolean;
  /** A note after a module's line, e.g. which source it came from. */
  moduleNote?: (key: string) => string;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function outlineModules(plan: Pick<Plan, 'modules'>, options: Pick<OutlineOptions, 'moduleNote'> = {}): string {
  if (plan.modules.length === 0) return '(no modules)';
  return plan.modules
    .map((m) => {
      const deps = m.dependsOn.length ? ` — depends on ${m.dependsOn.join(', ')}` : '';
      const note = options.moduleNote ? ` [${options.moduleNote(m.key)}]` : '';
      return `- ${m.key} (${m.kind}): ${m.name}${deps}${note}${m.summary ? `\n    ${clip(m.summary, 200)}` : ''}`;
    })
    .join('\n');
}

export function outlineSteps(plan: Pick<Plan, 'steps'>, options: Pick<OutlineOptions, 'instructions'> = {}): string {
  if (plan.steps.length === 0) return '(no steps)';
  return plan.steps
    .map((s, i) => {
      const lines = [`${i + 1}. ${s.key} [module ${s.moduleKey}]: ${s.title}`];
      if (options.instructions && s.instructions) lines.push(`    instructions: ${clip(s.instructions, 300)}`);
      lines.push(s.acceptance.length ? `    acceptance: ${s.acceptance.map((a) => JSON.stringify(a)).join('; ')}` : '    acceptance: (none)');
      return lines.join('\n');
    })
    .join('\n');
}

/** A whole plan: modules with kind and dependencies, steps in run order with acceptance checks. */
export function planOutline(plan: Plan, options: OutlineOptions = {}): string {
  const parts = [
    `Modules (${plan.modules.length}):\n${outlineModules(plan, options)}`,
    `Steps in run order (${plan.steps.length}):\n${outlineSteps(plan, options)}`,
  ];
  if (options.json) {
    const json = (o: unknown) => clip(JSON.stringify(o), 1500);
    parts.push(`Configuration: ${json(plan.configuration)}`, `Design system: ${json(plan.designSystem)}`);
  }
  return parts.join('\n');
}

/** One source blueprint, headed by its position, id and name. */
export function sourceOutline(bp: Blueprint, index: number, options: OutlineOptions = {}): string {
  return `Source ${index + 1}: "${bp.name}" (id ${bp.id}, slug ${bp.slug})\n${planOutline(bp.plan, options)}`;
}

export function sourcesOutline(sources: readonly Blueprint[], options: OutlineOptions = {}): string {
  return sources.map((s, i) => sourceOutline(s, i, options)).join('\n\n');
}
