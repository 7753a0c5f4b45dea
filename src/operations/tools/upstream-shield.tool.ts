import { cloneJson } from '../../plans/algebra';
import { invalid, validationFailed } from '../../platform/errors';
import { mergeBaseVersion, readShields, shieldsFromWire, shieldsToWire, wireSections, writeShields, type WireShields } from '../../versions/upstream.service';
import { versionSnapshot } from '../../blueprints/blueprint-version.service';
import { outlineModules } from '../plan-outline';
import { inplaceBase, writeInplace, type InplaceState } from '../tool-output.inplace';
import type { ToolContext, ToolDefinition } from '../tool-definition';

interface ShieldState extends InplaceState {
  previous: WireShields;
  /** Module keys a pin may name: the fork's, and the parent's at the merge base (to keep a deletion). */
  pinnable: string[];
  next?: WireShields;
}

const notAFork = () =>
  validationFailed('source_blueprint_ids/0 is not a fork; only a fork has an upstream to shield against', {
    issues: [{ path: 'source_blueprint_ids/0', message: 'is not a fork' }],
  });

/** A fork's parent id, or 400 when the blueprint is not a fork (or its parent was deleted). */
export function upstreamIdOf(c: ToolContext<unknown, unknown>): string {
  const parent = c.sources[0]!.forkedFrom;
  if (!parent) throw notAFork();
  return parent.id;
}

/** `upstream_shield`: pins sections, modules or JSON paths of a fork so that `upstream_merge` keeps them as the fork has them. */
export const upstreamShieldTool: ToolDefinition<Record<string, never>, ShieldState> = {
  type: 'upstream_shield',
  summary: 'Pins sections, modules or configuration paths of a fork against upstream changes (honoured by upstream_merge).',
  sources: { min: 1, max: 1 },
  sourceAccess: 'edit',
  output: 'inplace',
  paramsSchema: { type: 'object', additionalProperties: false, properties: {} },
  checkStart(c) {
    upstreamIdOf(c);
  },
  async initialState(c) {
    const fork = c.sources[0]!;
    const baseVersion = await mergeBaseVersion(c.tx, fork.id);
    const base = baseVersion === null ? null : await versionSnapshot(c.tx, upstreamIdOf(c), baseVersion);
    return {
      ...(await inplaceBase(c)),
      previous: shieldsToWire(await readShields(c.tx, fork.id)),
      pinnable: [...new Set([...fork.plan.modules.map((m) => m.key), ...(base?.modules.map((m) => m.key) ?? [])])],
    };
  },
  steps: () => [
    {
      title: 'Choose the shields',
      prompt: (c) =>
        `Fork "${c.sources[0]!.name}".\n\nModules:\n${outlineModules(c.sources[0]!.plan)}\n\nCurrent shields: ${JSON.stringify(c.state.previous)}\n\nStep 1 of 1: give the complete set of shields (it replaces the current one). A shielded section (${wireSections.join(', ')}) or module (with its steps) keeps the fork's version whatever upstream does; a path such as "configuration.database" or "design_system.colors" shields that part of a JSON section. upstream_merge reports every upstream change a shield held back.`,
      submissionSchema: {
        type: 'object',
        additionalProperties: false,
        properties: {
          sections: { type: 'array', uniqueItems: true, default: [], items: { type: 'string', enum: [...wireSections] } },
          modules: { type: 'array', uniqueItems: true, maxItems: 500, default: [], items: { type: 'string', minLength: 1, maxLength: 100 } },
          paths: {
            type: 'array',
            uniqueItems: true,
            maxItems: 200,
            default: [],
            items: { type: 'string', maxLength: 500, pattern: '^(configuration|design_system)(\\.|\\[).+' },
          },
        },
      },
      accept: (c, s: WireShields) => {
        const pinnable = new Set(c.state.pinnable);
        s.modules.forEach((k, i) => {
          if (!pinnable.has(k))
            throw invalid(`submission/modules/${i}`, `names no module: "${k}"`, `submission/modules/${i} names no module of the fork or its upstream: "${k}"`);
        });
        return { ...c.state, next: { sections: s.sections, modules: s.modules, paths: s.paths } };
      },
    },
  ],
  finish: (c) =>
    writeInplace(c, async (bp) => {
      const next = c.state.next!;
      await writeShields(c.tx, bp.id, shieldsFromWire(next));
      return { plan: cloneJson(bp.plan), always: true, details: { shields: next, previous_shields: c.state.previous } };
    }),
};
