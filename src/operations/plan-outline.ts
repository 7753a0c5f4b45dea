/**
 * Plans as text for tool prompts: enough for an agent to reason about the plan (keys, kinds,
 * dependencies, run order, acceptance) without the full JSON.
 */
import type { Plan } from '../plans/plan';

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function outlineModules(plan: Pick<Plan, 'modules'>): string {
  if (plan.modules.length === 0) return '(no modules)';
  return plan.modules
    .map((m) => `- ${m.key} (${m.kind}): ${m.name}${m.dependsOn.length ? ` — depends on ${m.dependsOn.join(', ')}` : ''}${m.summary ? `\n    ${clip(m.summary, 200)}` : ''}`)
    .join('\n');
}

export function outlineSteps(plan: Pick<Plan, 'steps'>, options: { instructions?: boolean } = {}): string {
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

export function outlinePlan(plan: Plan, options: { instructions?: boolean } = {}): string {
  const json = (o: unknown) => clip(JSON.stringify(o), 1500);
  return [
    `Modules:\n${outlineModules(plan)}`,
    `Steps (run order):\n${outlineSteps(plan, options)}`,
    `Configuration: ${json(plan.configuration)}`,
    `Design system: ${json(plan.designSystem)}`,
  ].join('\n\n');
}
