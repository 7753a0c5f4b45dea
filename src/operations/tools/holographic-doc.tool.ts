import type { BlueprintView } from '../../blueprints/blueprint.view';
import { childrenOf, parentsOf } from '../../lineage/lineage.service';
import { criticalPath, dependentsOf, moduleLevels, planStats } from '../../plans/algebra';
import type { Plan } from '../../plans/plan';
import { invalid } from '../../platform/errors';
import { outlineModules, outlineSteps } from '../plan-outline';
import { blueprintRef, narrativeSchema, reportResult } from '../tool-output.report';
import type { ToolContext, ToolDefinition } from '../tool-definition';

/** Most lineage neighbours the ecosystem level lists (a popular blueprint can have thousands of forks). */
const NEIGHBOURS_MAX = 50;

interface EcosystemNode {
  id: string;
  slug: string;
  name: string;
  relation: 'self' | 'parent' | 'child';
  link: string | null;
  composition: Record<string, number>;
}

interface HoloState {
  ecosystem: { nodes: EcosystemNode[]; childrenTotal: number };
  ecosystemText?: string;
  architectureText?: string;
  moduleDocs?: Record<string, string>;
}

type Ctx = ToolContext<Record<string, never>, HoloState>;

const composition = (plan: Plan) => planStats(plan).modulesByKind;

function node(bp: BlueprintView, relation: EcosystemNode['relation'], link: string | null): EcosystemNode {
  return { id: bp.id, slug: bp.slug, name: bp.name, relation, link, composition: composition(bp.plan) };
}

/** Zoom level 2: modules with their dependency edges, grouped in build levels. */
function architecture(plan: Plan) {
  const levels = moduleLevels(plan);
  const byLevel: string[][] = [];
  for (const [key, level] of levels) (byLevel[level] ??= []).push(key);
  return {
    modules: plan.modules.map((m) => ({ key: m.key, name: m.name, kind: m.kind, level: levels.get(m.key) ?? 0, depends_on: m.dependsOn })),
    edges: plan.modules.flatMap((m) => m.dependsOn.map((d) => ({ from: m.key, to: d }))),
    levels: byLevel.map((keys) => keys.sort()),
    critical_path: criticalPath(plan),
  };
}

/** Zoom level 3: each module with its steps in run order. */
function moduleDetail(plan: Plan, docs: Record<string, string>) {
  return plan.modules.map((m) => ({
    key: m.key,
    name: m.name,
    kind: m.kind,
    summary: m.summary,
    depends_on: m.dependsOn,
    dependents: [...dependentsOf(plan, m.key)].sort(),
    steps: plan.steps.filter((s) => s.moduleKey === m.key).map((s) => ({ key: s.key, title: s.title, acceptance: s.acceptance.length })),
    doc: docs[m.key] ?? '',
  }));
}

function describeEcosystem(c: Ctx): string {
  const lines = c.state.ecosystem.nodes.map((n) => `- [${n.relation}${n.link ? `, ${n.link}` : ''}] ${n.name} (${n.slug}): ${JSON.stringify(n.composition)}`);
  const more = c.state.ecosystem.childrenTotal - c.state.ecosystem.nodes.filter((n) => n.relation === 'child').length;
  return lines.join('\n') + (more > 0 ? `\n(and ${more} more children)` : '');
}

/** `holographic_doc`: documentation of one blueprint at the three zoom levels (ecosystem, architecture, module). */
export const holographicDocTool: ToolDefinition<Record<string, never>, HoloState> = {
  type: 'holographic_doc',
  summary: 'Documentation at three zoom levels: the ecosystem around the blueprint, its architecture, and each module.',
  sources: { min: 1, max: 1 },
  sourceAccess: 'read',
  output: 'report',
  paramsSchema: { type: 'object', additionalProperties: false, properties: {} },
  async initialState(c) {
    const bp = c.sources[0]!;
    const [parents, children] = await Promise.all([parentsOf(c.ctx, bp.id), childrenOf(c.ctx, bp.id)]);
    return {
      ecosystem: {
        nodes: [
          node(bp, 'self', null),
          ...parents.map((r) => node(r.blueprint, 'parent', r.kind)),
          ...children.slice(0, NEIGHBOURS_MAX).map((r) => node(r.blueprint, 'child', r.kind)),
        ],
        childrenTotal: children.length,
      },
    };
  },
  steps: () => [
    {
      title: 'Ecosystem',
      prompt: (c) =>
        `Blueprint "${c.sources[0]!.name}" and its lineage neighbours, with each one's module composition (modules per kind):\n${describeEcosystem(c)}\n\nStep 1 of 3 (zoom level 1, ecosystem): describe where this blueprint sits among its relatives: what it is for, what it inherited, what its descendants did with it.`,
      submissionSchema: narrativeSchema('ecosystem'),
      accept: (c, s: { ecosystem: string }) => ({ ...c.state, ecosystemText: s.ecosystem }),
    },
    {
      title: 'Architecture',
      prompt: (c) => {
        const a = architecture(c.sources[0]!.plan);
        return `Modules:\n${outlineModules(c.sources[0]!.plan)}\n\nBuild levels (a level depends only on lower ones): ${a.levels.map((l, i) => `${i}: ${l.join(', ')}`).join(' | ')}\nCritical path: ${a.critical_path.join(' -> ')}\n\nStep 2 of 3 (zoom level 2, architecture): describe the architecture: the modules, how they depend on each other, and the main data and control flows.`;
      },
      submissionSchema: narrativeSchema('architecture'),
      accept: (c, s: { architecture: string }) => ({ ...c.state, architectureText: s.architecture }),
    },
    {
      title: 'Modules',
      prompt: (c) =>
        `Steps (run order):\n${outlineSteps(c.sources[0]!.plan, { instructions: true })}\n\nStep 3 of 3 (zoom level 3, module detail): document every module (${c.sources[0]!.plan.modules.map((m) => m.key).join(', ')}): its responsibility, its interface, and how its steps build it. Give each module key exactly once.`,
      submissionSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['modules'],
        properties: {
          modules: {
            type: 'array',
            maxItems: 500,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['key', 'doc'],
              properties: { key: { type: 'string', minLength: 1, maxLength: 100 }, doc: { type: 'string', minLength: 1, maxLength: 20_000, pattern: '\\S' } },
            },
          },
        },
      },
      accept: (c, s: { modules: Array<{ key: string; doc: string }> }) => {
        const keys = new Set(c.sources[0]!.plan.modules.map((m) => m.key));
        const docs: Record<string, string> = {};
        s.modules.forEach((m, i) => {
          const path = `submission/modules/${i}/key`;
          if (!keys.has(m.key)) throw invalid(path, `names no module: "${m.key}"`, `${path} names no module: "${m.key}"`);
          if (Object.prototype.hasOwnProperty.call(docs, m.key)) throw invalid(path, 'repeats a module', `${path} repeats module "${m.key}"`);
          docs[m.key] = m.doc;
        });
        const missing = [...keys].filter((k) => !Object.prototype.hasOwnProperty.call(docs, k));
        if (missing.length > 0)
          throw invalid('submission/modules', `misses ${missing.join(', ')}`, `submission/modules must document every module; missing: ${missing.join(', ')}`);
        return { ...c.state, moduleDocs: docs };
      },
    },
  ],
  async finish(c) {
    const bp = c.sources[0]!;
    return reportResult({
      blueprint: blueprintRef(bp),
      levels: {
        ecosystem: { text: c.state.ecosystemText, nodes: c.state.ecosystem.nodes, children_total: c.state.ecosystem.childrenTotal },
        architecture: { text: c.state.architectureText, ...architecture(bp.plan) },
        module: { modules: moduleDetail(bp.plan, c.state.moduleDocs ?? {}) },
      },
    });
  },
};
