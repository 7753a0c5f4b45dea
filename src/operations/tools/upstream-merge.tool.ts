import { Visibility } from '../../blueprints/blueprint.entity';
import { getBlueprint } from '../../blueprints/blueprint.service';
import {
  cloneJson,
  diffPlans,
  isJsonObject,
  mergeThreeWay,
  repairPlan,
  weaveOrder,
  type MergeConflict,
  type MergeResult,
  type PlanRepair,
} from '../../plans/algebra';
import type { JsonObject, Plan, PlanModule, PlanStep } from '../../plans/plan';
import { invalid } from '../../platform/errors';
import { mergeBaseVersion, readShields } from '../../versions/upstream.service';
import { latestVersionNumber, versionSnapshot } from '../../blueprints/blueprint-version.service';
import { planDiffToWire, type WirePlanDiff } from '../../versions/version.wire';
import { inplaceBase, writeInplace, type InplaceState } from '../tool-output.inplace';
import type { ToolContext, ToolDefinition } from '../tool-definition';
import { upstreamIdOf } from './upstream-shield.tool';

type Choice = 'ours' | 'theirs';

/** A conflict the agent decides, with the id its resolution names. */
interface OpenConflict extends MergeConflict {
  id: string;
}

interface MergeState extends InplaceState {
  upstreamId: string;
  /** The parent's version at the merge base and now. */
  mergeBase: number;
  upstreamVersion: number;
  open: OpenConflict[];
  /** Conflicts the merge settled itself (a dependency dropped to keep the plan valid, ...). */
  settled: MergeConflict[];
  shielded: MergeResult['shielded'];
  preview: WirePlanDiff;
  choices?: Record<string, Choice>;
}

type Ctx = ToolContext<Record<string, never>, MergeState>;

const decidable = (c: MergeConflict) => c.kind === 'stepOrder' || ['both-changed', 'both-added', 'changed-and-removed'].includes(c.reason);

/** Parses the JSON paths the merge reports (`a.b`, `a["x.y"]`) into keys. */
export function pathKeys(path: string): string[] {
  const keys: string[] = [];
  let rest = path;
  while (rest.length > 0) {
    const plain = /^\.?([A-Za-z_$][\w$-]*)/.exec(rest);
    const quoted = /^\[("(?:[^"\\]|\\.)*")\]/.exec(rest);
    if (plain) keys.push(plain[1]!);
    else if (quoted) keys.push(JSON.parse(quoted[1]!) as string);
    else return [...keys, rest];
    rest = rest.slice((plain ?? quoted)![0].length);
  }
  return keys;
}

function setAt(root: JsonObject, keys: string[], value: unknown): void {
  let obj = root;
  for (const k of keys.slice(0, -1)) {
    if (!isJsonObject(obj[k])) Object.defineProperty(obj, k, { value: {}, enumerable: true, writable: true, configurable: true });
    obj = obj[k] as JsonObject;
  }
  const last = keys[keys.length - 1]!;
  if (value === undefined) delete obj[last];
  else Object.defineProperty(obj, last, { value: cloneJson(value), enumerable: true, writable: true, configurable: true });
}

/** Takes upstream's side of one conflict in the merged plan. */
function takeTheirs(plan: Plan, theirs: Plan, conflict: MergeConflict): void {
  if (conflict.kind === 'module') {
    const value = conflict.theirs as PlanModule | undefined;
    const at = plan.modules.findIndex((m) => m.key === conflict.key);
    if (value && at >= 0) plan.modules[at] = cloneJson(value);
    else if (value) plan.modules.push(cloneJson(value));
    else if (at >= 0) plan.modules.splice(at, 1);
  } else if (conflict.kind === 'step') {
    const value = conflict.theirs as PlanStep | undefined;
    const rest = plan.steps.filter((s) => s.key !== conflict.key);
    const byKey = new Map(rest.map((s) => [s.key, s]));
    if (value) byKey.set(value.key, cloneJson(value));
    plan.steps = weaveOrder(
      plan.steps.map((s) => s.key),
      theirs.steps.map((s) => s.key),
    )
      .filter((k) => byKey.has(k))
      .map((k) => byKey.get(k)!);
  } else if (conflict.kind === 'stepOrder') {
    const byKey = new Map(plan.steps.map((s) => [s.key, s]));
    plan.steps = weaveOrder(
      theirs.steps.map((s) => s.key),
      plan.steps.map((s) => s.key),
    )
      .filter((k) => byKey.has(k))
      .map((k) => byKey.get(k)!);
  } else {
    const keys = pathKeys(conflict.key);
    if (keys.length === 0) plan[conflict.kind] = isJsonObject(conflict.theirs) ? cloneJson(conflict.theirs) : {};
    else setAt(plan[conflict.kind], keys, conflict.theirs);
  }
}

interface Inputs {
  base: Plan;
  theirs: Plan;
}

async function inputsOf(c: Ctx, upstreamId: string, mergeBase: number, upstreamVersion: number): Promise<Inputs> {
  // One after the other: both run on the submission's single transaction connection.
  const base = await versionSnapshot(c.tx, upstreamId, mergeBase);
  const theirs = await versionSnapshot(c.tx, upstreamId, upstreamVersion);
  return { base: base!, theirs: theirs! };
}

function openConflicts(conflicts: MergeConflict[]): { open: OpenConflict[]; settled: MergeConflict[] } {
  const open: OpenConflict[] = [];
  const ids = new Set<string>();
  for (const c of conflicts.filter(decidable)) {
    let id = `${c.kind}:${c.key}`;
    for (let n = 2; ids.has(id); n++) id = `${c.kind}:${c.key}#${n}`;
    ids.add(id);
    open.push({ ...c, id });
  }
  return { open, settled: conflicts.filter((c) => !decidable(c)) };
}

/** The merged plan with the agent's choices applied, made valid again (what had to be dropped is listed). */
function resolve(result: MergeResult, theirs: Plan, choices: Record<string, Choice>): { plan: Plan; repairs: PlanRepair[]; open: OpenConflict[] } {
  const { open } = openConflicts(result.conflicts);
  const plan = cloneJson(result.plan);
  for (const conflict of open) if (choices[conflict.id] === 'theirs') takeTheirs(plan, theirs, conflict);
  return { ...repairPlan(plan), open };
}

function describeConflict(c: OpenConflict): string {
  const show = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v).slice(0, 600));
  if (c.kind === 'stepOrder') return `- ${c.id}: both sides reordered the steps`;
  return `- ${c.id} (${c.reason}):\n    base:   ${show(c.base)}\n    ours:   ${show(c.ours)}\n    theirs: ${show(c.theirs)}`;
}

/** `upstream_merge`: three-way merge of the parent's changes since the fork point (or the last merge), honouring shields. */
export const upstreamMergeTool: ToolDefinition<Record<string, never>, MergeState> = {
  type: 'upstream_merge',
  summary: "Merges the upstream blueprint's changes since the fork point into the fork (three-way), honouring shields.",
  sources: { min: 1, max: 1 },
  sourceAccess: 'edit',
  output: 'inplace',
  paramsSchema: { type: 'object', additionalProperties: false, properties: {} },
  async checkStart(c) {
    const upstreamId = upstreamIdOf(c);
    await getBlueprint(c.ctx, upstreamId); // 404 when the parent is no longer visible to the caller
    if ((await mergeBaseVersion(c.tx, c.sources[0]!.id)) === null)
      throw invalid('source_blueprint_ids/0', 'has no recorded fork point', 'source_blueprint_ids/0 has no recorded fork point to merge from');
  },
  async initialState(c) {
    const fork = c.sources[0]!;
    const upstreamId = upstreamIdOf(c);
    const mergeBase = (await mergeBaseVersion(c.tx, fork.id))!;
    const upstreamVersion = await latestVersionNumber(c.tx, upstreamId);
    const { base, theirs } = await inputsOf(c, upstreamId, mergeBase, upstreamVersion);
    const result = mergeThreeWay(base, fork.plan, theirs, { pinned: await readShields(c.tx, fork.id) });
    const { open, settled } = openConflicts(result.conflicts);
    return {
      ...(await inplaceBase(c)),
      upstreamId,
      mergeBase,
      upstreamVersion,
      open,
      settled,
      shielded: result.shielded,
      preview: planDiffToWire(diffPlans(fork.plan, result.plan)),
    };
  },
  steps: () => [
    {
      title: 'Resolve conflicts',
      prompt: (c) => {
        const s = c.state;
        const p = s.preview;
        const changes = `Modules added ${p.modules.added.join(', ') || '-'}; removed ${p.modules.removed.join(', ') || '-'}; changed ${p.modules.changed.map((x) => x.key).join(', ') || '-'}\nSteps added ${p.steps.added.join(', ') || '-'}; removed ${p.steps.removed.join(', ') || '-'}; changed ${p.steps.changed.map((x) => x.key).join(', ') || '-'}\nSections touched: ${p.sections_touched.join(', ') || '(none)'}`;
        return `Merging upstream versions ${s.mergeBase} -> ${s.upstreamVersion} into fork "${c.sources[0]!.name}".\n\nWhat the merge changes in the fork (conflicts kept as ours):\n${changes}\n\nHeld back by shields: ${s.shielded.map((x) => `${x.kind} ${x.key}`).join(', ') || '(nothing)'}\nSettled by the server: ${s.settled.map((x) => `${x.kind} ${x.key} (${x.reason})`).join(', ') || '(nothing)'}\n\nConflicts:\n${s.open.map(describeConflict).join('\n') || '(none)'}\n\nStep 1 of 1: resolve every conflict by its id, choosing "ours" (the fork's version) or "theirs" (upstream's). With no conflicts, submit an empty list to confirm the merge.`;
      },
      submissionSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['resolutions'],
        properties: {
          resolutions: {
            type: 'array',
            maxItems: 10_000,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['conflict', 'choose'],
              properties: { conflict: { type: 'string', minLength: 1 }, choose: { type: 'string', enum: ['ours', 'theirs'] } },
            },
          },
        },
      },
      accept: (c, s: { resolutions: Array<{ conflict: string; choose: Choice }> }) => {
        const ids = new Set(c.state.open.map((o) => o.id));
        const choices: Record<string, Choice> = {};
        s.resolutions.forEach((r, i) => {
          const path = `submission/resolutions/${i}/conflict`;
          if (!ids.has(r.conflict)) throw invalid(path, 'names no open conflict', `${path} names no open conflict: "${r.conflict}"`);
          if (Object.prototype.hasOwnProperty.call(choices, r.conflict))
            throw invalid(path, 'resolves a conflict twice', `${path} resolves "${r.conflict}" twice`);
          choices[r.conflict] = r.choose;
        });
        const missing = [...ids].filter((id) => !Object.prototype.hasOwnProperty.call(choices, id));
        if (missing.length > 0)
          throw invalid(
            'submission/resolutions',
            `misses ${missing.join(', ')}`,
            `submission/resolutions must resolve every conflict; missing: ${missing.join(', ')}`,
          );
        return { ...c.state, choices };
      },
    },
  ],
  finish: (c) =>
    writeInplace(c, async (bp) => {
      const s = c.state;
      const { base, theirs } = await inputsOf(c, s.upstreamId, s.mergeBase, s.upstreamVersion);
      const result = mergeThreeWay(base, bp.plan, theirs, { pinned: await readShields(c.tx, bp.id) });
      const { plan, repairs, open } = resolve(result, theirs, s.choices ?? {});
      // A public fork's history never names a private upstream (its lineage, access-checked on read, does).
      const upstream: Array<{ visibility: string }> = await c.tx.execute('select visibility from blueprint where id = ?', [s.upstreamId]);
      const hideUpstream = bp.visibility === Visibility.PUBLIC && upstream[0]?.visibility !== Visibility.PUBLIC;
      return {
        plan,
        // Advancing the merge base is itself worth a version, even when shields held everything back.
        always: s.upstreamVersion !== s.mergeBase,
        details: {
          upstream_id: hideUpstream ? null : s.upstreamId,
          base_version: s.mergeBase,
          upstream_version: s.upstreamVersion,
          shielded: result.shielded,
          conflicts: open.map((o) => ({ id: o.id, kind: o.kind, key: o.key, reason: o.reason, chosen: s.choices?.[o.id] ?? 'ours' })),
          settled: result.conflicts
            .filter((x) => !decidable(x))
            .map((x) => ({ kind: x.kind, key: x.key, reason: x.reason, ...(x.dependency ? { dependency: x.dependency } : {}) })),
          repairs,
        },
      };
    }),
};
