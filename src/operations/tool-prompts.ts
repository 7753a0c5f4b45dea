/**
 * Text the NEW-output tools put into their prompts: plans and sources written out so the calling agent
 * has every key, dependency and step it may name in a submission.
 */
import type { Blueprint } from '../blueprints/blueprint.entity';
import type { Plan } from '../plans/plan';
import { validationFailed, type AppError } from '../platform/errors';

export interface OutlineOptions {
  /** Include each step's instructions (tools that rewrite steps need them). */
  instructions?: boolean;
  /** Include configuration and design system as JSON. */
  json?: boolean;
  /** A note after a module's line, e.g. which source it came from. */
  moduleNote?: (key: string) => string;
}

/** A plan as readable text: modules with kind and dependencies, steps in run order with acceptance checks. */
export function planOutline(plan: Plan, options: OutlineOptions = {}): string {
  const lines: string[] = [`Modules (${plan.modules.length}):`];
  for (const m of plan.modules) {
    const deps = m.dependsOn.length > 0 ? ` — depends on ${m.dependsOn.join(', ')}` : '';
    const note = options.moduleNote ? ` [${options.moduleNote(m.key)}]` : '';
    lines.push(`- ${m.key} (${m.kind}) "${m.name}"${m.summary ? `: ${m.summary}` : ''}${deps}${note}`);
  }
  lines.push(`Steps in run order (${plan.steps.length}):`);
  plan.steps.forEach((s, i) => {
    lines.push(`${i + 1}. ${s.key} [module ${s.moduleKey}] ${s.title}`);
    if (options.instructions && s.instructions) lines.push(`   instructions: ${s.instructions.replace(/\n/g, '\n   ')}`);
    if (s.acceptance.length > 0) lines.push(`   acceptance: ${s.acceptance.join(' | ')}`);
  });
  if (options.json) {
    lines.push(`Configuration: ${JSON.stringify(plan.configuration)}`);
    lines.push(`Design system: ${JSON.stringify(plan.designSystem)}`);
  }
  return lines.join('\n');
}

/** One source blueprint, headed by its position, id and name. */
export function sourceOutline(bp: Blueprint, index: number, options: OutlineOptions = {}): string {
  return `Source ${index + 1}: "${bp.name}" (id ${bp.id}, slug ${bp.slug})\n${planOutline(bp.plan, options)}`;
}

export function sourcesOutline(sources: readonly Blueprint[], options: OutlineOptions = {}): string {
  return sources.map((s, i) => sourceOutline(s, i, options)).join('\n\n');
}

/** A 400 for a submission that is well-formed but wrong about the sources; `path` is under `submission/`. */
export function submissionError(path: string, message: string): AppError {
  const full = path ? `submission/${path}` : 'submission';
  return validationFailed(`${full} ${message}`, { issues: [{ path: full, message }] });
}

/** A 400 for a start whose sources cannot give a result (e.g. nothing in common), naming the sources. */
export function sourcesError(message: string, index?: number): AppError {
  const path = index === undefined ? 'source_blueprint_ids' : `source_blueprint_ids/${index}`;
  return validationFailed(`${path} ${message}`, { issues: [{ path, message }] });
}
