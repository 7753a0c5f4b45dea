import { topologicalOrder } from '../plans/algebra';
import type { Plan } from '../plans/plan';

export interface PromptSubject {
  name: string;
  slug: string;
  description: string;
  plan: Plan;
}

/** A team's coding conventions, injected into the execution context of the team's blueprints. */
export interface TeamConventions {
  teamName: string;
  conventions: string;
}

function jsonBlock(value: Record<string, unknown>): string {
  return Object.keys(value).length === 0 ? '(none given)' : '```json\n' + JSON.stringify(value, null, 2) + '\n```';
}

/** Modules in build order (dependencies first), each with its kind, summary, dependencies and step count. */
function moduleMap(plan: Plan): string {
  const byKey = new Map(plan.modules.map((m) => [m.key, m]));
  const stepsPer = new Map<string, number>();
  for (const s of plan.steps) stepsPer.set(s.moduleKey, (stepsPer.get(s.moduleKey) ?? 0) + 1);
  return topologicalOrder(plan)
    .map((key) => {
      const m = byKey.get(key)!;
      const deps = m.dependsOn.length ? m.dependsOn.join(', ') : 'nothing';
      const summary = m.summary ? `: ${m.summary}` : '';
      const steps = stepsPer.get(key) ?? 0;
      return `- ${m.key} — ${m.name} (${m.kind})${summary}. Depends on: ${deps}. Steps: ${steps}.`;
    })
    .join('\n');
}

/**
 * The system prompt of an execution: who the agent is working for, the whole plan's shape (configuration,
 * design system, module map with dependencies, step count) and, for a team blueprint, the team's coding
 * conventions. Depends only on its inputs, so every run of one blueprint version gets the same prompt.
 */
export function buildSystemPrompt(subject: PromptSubject, team: TeamConventions | null): string {
  const { plan } = subject;
  const total = plan.steps.length;
  const parts = [
    `You are a software engineering agent executing the blueprint "${subject.name}" (${subject.slug}): a build plan of ${plan.modules.length} module${plan.modules.length === 1 ? '' : 's'} in ${total} step${total === 1 ? '' : 's'}.`,
    subject.description ? `What it builds: ${subject.description}` : '',
    `How to work: request the steps in order, 1 to ${total}, each with its stage token. Do what each step's instructions say inside the module it names, and do not move on until every acceptance check of the step holds. Stop when a response says dn: true. If you cannot finish, report the run as failed with notes.`,
    `## Configuration\n${jsonBlock(plan.configuration)}`,
    `## Design system\n${jsonBlock(plan.designSystem)}`,
    `## Modules (in build order)\n${plan.modules.length ? moduleMap(plan) : '(none)'}`,
  ];
  const conventions = team?.conventions.trim();
  if (team && conventions)
    parts.push(`## Coding conventions of team "${team.teamName}"\nFollow these in every step; they override your own habits.\n\n${conventions}`);
  return parts.filter(Boolean).join('\n\n');
}
