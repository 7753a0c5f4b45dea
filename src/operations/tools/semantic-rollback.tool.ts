import { cloneJson, diffPlans, repairPlan, weaveOrder, type PlanRepair, type PlanSection } from '../../plans/algebra';
import type { Plan } from '../../plans/plan';
import { invalid } from '../../platform/errors';
import { wireSections, type WireSection } from '../../versions/upstream.service';
import { latestVersionNumber, versionSnapshot } from '../../blueprints/blueprint-version.service';
import { planDiffToWire, type WirePlanDiff } from '../../versions/version.wire';
import { inplaceBase, writeInplace, type InplaceState } from '../tool-output.inplace';
import type { ToolDefinition } from '../tool-definition';

const sectionOf = (s: WireSection): PlanSection => (s === 'design_system' ? 'designSystem' : s);

interface RollbackParams {
  version: number;
  sections?: WireSection[];
  modules?: string[];
}

interface RollbackState extends InplaceState {
  /** From the current plan to the chosen version's, for the prompt. */
  preview: WirePlanDiff;
  snapshotModules: string[];
  choice?: { sections: WireSection[]; modules: string[] };
}

/**
 * The current plan with chosen parts put back as `snapshot` had them. A section is replaced whole.
 * A module comes back with its steps (those it still has stay where they run now, the others go
 * where the snapshot ran them relative to the rest), or disappears with its steps when the snapshot
 * did not have it. Whatever no longer fits (a step of a module that is gone, a dependency on one) is
 * dropped and reported.
 */
export function restorePlan(current: Plan, snapshot: Plan, sections: PlanSection[], modules: string[]): { plan: Plan; repairs: PlanRepair[] } {
  const plan = cloneJson(current);
  for (const s of sections) (plan as unknown as Record<string, unknown>)[s] = cloneJson(snapshot[s]);
  for (const key of modules) {
    const old = snapshot.modules.find((m) => m.key === key);
    const at = plan.modules.findIndex((m) => m.key === key);
    if (old && at >= 0) plan.modules[at] = cloneJson(old);
    else if (old) plan.modules.push(cloneJson(old));
    else if (at >= 0) plan.modules.splice(at, 1);
    const back = new Map(snapshot.steps.filter((s) => s.moduleKey === key).map((s) => [s.key, cloneJson(s)]));
    // Steps both versions have stay where they run now; steps only the old version had are woven in.
    const kept = plan.steps.filter((s) => s.moduleKey !== key || back.has(s.key));
    const byKey = new Map([...kept.map((s) => [s.key, s] as const), ...back]);
    plan.steps = weaveOrder(
      kept.map((s) => s.key),
      snapshot.steps.map((s) => s.key),
    )
      .filter((k) => byKey.has(k))
      .map((k) => byKey.get(k)!);
  }
  return repairPlan(plan);
}

const badVersion = (message: string) => invalid('params/version', message, `params/version ${message}`);

/** `semantic_rollback`: restores chosen sections or modules of a blueprint from one of its stored versions. */
export const semanticRollbackTool: ToolDefinition<RollbackParams, RollbackState> = {
  type: 'semantic_rollback',
  summary: 'Restores chosen sections or modules of a blueprint from an earlier version (a new version).',
  sources: { min: 1, max: 1 },
  sourceAccess: 'edit',
  output: 'inplace',
  paramsSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['version'],
    properties: {
      version: { type: 'integer', minimum: 1, description: 'The version number to restore from.' },
      sections: { type: 'array', uniqueItems: true, items: { type: 'string', enum: [...wireSections] } },
      modules: { type: 'array', uniqueItems: true, maxItems: 500, items: { type: 'string', minLength: 1, maxLength: 100 } },
    },
  },
  async checkStart(c) {
    const latest = await latestVersionNumber(c.tx, c.sources[0]!.id);
    if (c.params.version > latest) throw badVersion(`names no version of this blueprint (it has versions 1 to ${latest})`);
    if (c.params.version === latest)
      throw badVersion(
        latest === 1 ? 'is the only version; there is nothing earlier to restore' : `is the current version; choose an earlier one (1 to ${latest - 1})`,
      );
  },
  async initialState(c) {
    const snapshot = (await versionSnapshot(c.tx, c.sources[0]!.id, c.params.version))!;
    return {
      ...(await inplaceBase(c)),
      preview: planDiffToWire(diffPlans(c.sources[0]!.plan, snapshot)),
      snapshotModules: snapshot.modules.map((m) => m.key),
    };
  },
  steps: () => [
    {
      title: 'Choose what to restore',
      prompt: (c) => {
        const p = c.state.preview;
        const keyed = (k: { added: string[]; removed: string[]; changed: Array<{ key: string }> }) =>
          `would come back: ${k.added.join(', ') || '-'}; would go: ${k.removed.join(', ') || '-'}; would change back: ${k.changed.map((x) => x.key).join(', ') || '-'}`;
        return `Blueprint "${c.sources[0]!.name}" compared with its version ${c.params.version}:\nModules — ${keyed(p.modules)}\nSteps — ${keyed(p.steps)}\nConfiguration differs at: ${[...p.configuration.added, ...p.configuration.removed, ...p.configuration.changed].join(', ') || '-'}\nDesign system differs at: ${[...p.design_system.added, ...p.design_system.removed, ...p.design_system.changed].join(', ') || '-'}\n\nProposed: sections ${(c.params.sections ?? []).join(', ') || '-'}; modules ${(c.params.modules ?? []).join(', ') || '-'}.\n\nStep 1 of 1: choose the sections (${wireSections.join(', ')}) to restore whole and the modules to restore with their steps (a module version ${c.params.version} did not have is removed). Omitted fields keep the proposal. Parts that no longer fit are dropped and reported.`;
      },
      submissionSchema: {
        type: 'object',
        additionalProperties: false,
        properties: {
          sections: { type: 'array', uniqueItems: true, items: { type: 'string', enum: [...wireSections] } },
          modules: { type: 'array', uniqueItems: true, maxItems: 500, items: { type: 'string', minLength: 1, maxLength: 100 } },
        },
      },
      accept: (c, s: { sections?: WireSection[]; modules?: string[] }) => {
        const sections = s.sections ?? c.params.sections ?? [];
        const modules = s.modules ?? c.params.modules ?? [];
        if (sections.length + modules.length === 0)
          throw invalid('submission/sections', 'choose at least one section or module', 'submission must choose at least one section or module to restore');
        const known = new Set([...c.state.snapshotModules, ...c.sources[0]!.plan.modules.map((m) => m.key)]);
        modules.forEach((k, i) => {
          if (!known.has(k))
            throw invalid(`submission/modules/${i}`, `names no module: "${k}"`, `submission/modules/${i} names no module of either version: "${k}"`);
        });
        return { ...c.state, choice: { sections, modules } };
      },
    },
  ],
  finish: (c) =>
    writeInplace(c, async (bp) => {
      const snapshot = (await versionSnapshot(c.tx, bp.id, c.params.version))!;
      const choice = c.state.choice!;
      const { plan, repairs } = restorePlan(bp.plan, snapshot, choice.sections.map(sectionOf), choice.modules);
      return { plan, details: { restored_from: c.params.version, restored_sections: choice.sections, restored_modules: choice.modules, repairs } };
    }),
};
