/**
 * The plan a blueprint holds (docs/api.md). Stored and handled in camelCase; the REST wire form
 * (`depends_on`, `module_key`, `design_system`) is converted here and nowhere else.
 */
export interface PlanModule {
  key: string;
  name: string;
  summary: string;
  kind: string;
  dependsOn: string[];
}

export interface PlanStep {
  key: string;
  moduleKey: string;
  title: string;
  instructions: string;
  acceptance: string[];
}

export type JsonObject = Record<string, unknown>;

export interface Plan {
  modules: PlanModule[];
  /** Array order is run order. */
  steps: PlanStep[];
  configuration: JsonObject;
  designSystem: JsonObject;
}

export interface WireModule {
  key: string;
  name: string;
  summary?: string;
  kind: string;
  depends_on?: string[];
}

export interface WireStep {
  key: string;
  module_key: string;
  title: string;
  instructions: string;
  acceptance?: string[];
}

export const emptyPlan = (): Plan => ({ modules: [], steps: [], configuration: {}, designSystem: {} });

export function moduleFromWire(m: WireModule): PlanModule {
  return { key: m.key, name: m.name, summary: m.summary ?? '', kind: m.kind, dependsOn: [...(m.depends_on ?? [])] };
}

export function stepFromWire(s: WireStep): PlanStep {
  return {
    key: s.key,
    moduleKey: s.module_key,
    title: s.title,
    instructions: s.instructions,
    acceptance: [...(s.acceptance ?? [])],
  };
}

export function moduleToWire(m: PlanModule): Required<WireModule> {
  return { key: m.key, name: m.name, summary: m.summary, kind: m.kind, depends_on: m.dependsOn };
}

export function stepToWire(s: PlanStep): Required<WireStep> {
  return { key: s.key, module_key: s.moduleKey, title: s.title, instructions: s.instructions, acceptance: s.acceptance };
}

/** Wire names of plan fields, for error paths that match what a REST caller sent. */
export const wireName: Record<string, string> = {
  dependsOn: 'depends_on',
  moduleKey: 'module_key',
  designSystem: 'design_system',
};
