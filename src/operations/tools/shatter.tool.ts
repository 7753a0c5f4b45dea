import { dependencyClusters, restrictPlan } from '../../plans/algebra';
import type { Plan } from '../../plans/plan';
import type { ToolContext, ToolDefinition } from '../tool-definition';
import {
  clampName,
  defaultTags,
  defaultVisibility,
  identityFrom,
  identityProperties,
  newResult,
  publicView,
  writeNewBlueprints,
  type Identity,
} from '../tool-output';
import { planOutline } from '../plan-outline';
import { sourcesError, submissionError } from '../tool-prompts';

interface ShatterState {
  /** Module keys of each independent piece, in the order the prompt lists them. */
  clusters: string[][];
  /** The piece plans, fixed at start so what the prompt shows is what gets written. */
  plans: Plan[];
  pieces?: Array<{ plan: Plan; identity: Identity }>;
}

type Ctx = ToolContext<Record<string, never>, ShatterState>;

/** A piece's defaults; its text names the source as `publicView` has it (tool-output.ts). */
function pieceDefaults(c: Ctx, plan: Plan, i: number): Identity {
  const source = publicView(c).sources[0]!;
  const main = plan.modules[0]!;
  return {
    name: clampName(`${source.name}: ${plan.modules.length === 1 ? main.name : `${main.name} and ${plan.modules.length - 1} more`}`),
    description: `Piece ${i + 1} of ${c.state.clusters.length} of "${source.name}": ${plan.modules.map((m) => m.key).join(', ')}.`,
    tags: defaultTags(c.sources),
    visibility: defaultVisibility(c.sources),
  };
}

/**
 * `shatter` (1 source): one NEW blueprint per dependency cluster of the source's modules (modules that
 * neither depend on each other directly nor through others go to different pieces). The server finds
 * the clusters; the agent names each piece. Each piece is a fork of the source.
 */
export const shatterTool: ToolDefinition<Record<string, never>, ShatterState> = {
  type: 'shatter',
  summary: 'Split a blueprint into independent blueprints, one per module dependency cluster.',
  sources: { min: 1, max: 1 },
  sourceAccess: 'read',
  output: 'new',
  paramsSchema: { type: 'object', additionalProperties: false, properties: {} },
  initialState(c) {
    const clusters = dependencyClusters(c.sources[0]!.plan);
    if (clusters.length < 2) throw sourcesError('has a single module dependency cluster; there is nothing independent to split off', 0);
    // Each cluster as its own plan: its modules, their steps, the source's configuration and design system.
    return { clusters, plans: clusters.map((keys) => restrictPlan(c.sources[0]!.plan, keys)) };
  },
  steps: () => [
    {
      title: 'Name the pieces',
      prompt: (c) => {
        const pieces = c.state.plans;
        return [
          `Shatter "${c.sources[0]!.name}": the server found ${pieces.length} independent module clusters; each becomes its own blueprint with its modules, their steps, and the source's configuration and design system.`,
          '',
          ...pieces.flatMap((plan, i) => {
            const d = pieceDefaults(c, plan, i);
            return [`Piece ${i + 1} (default name ${JSON.stringify(d.name)}):`, planOutline(plan), ''];
          }),
          `Step 1 of 1: give \`blueprints\`, exactly ${pieces.length} entries, one per piece in the order above, each with name, description, tags and visibility (public or private). Any field left out takes its default (visibility ${defaultVisibility(c.sources)}).`,
        ].join('\n');
      },
      submissionSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['blueprints'],
        properties: {
          blueprints: { type: 'array', minItems: 1, maxItems: 500, items: { type: 'object', additionalProperties: false, properties: identityProperties } },
        },
      },
      accept: (c, s: { blueprints: Array<Partial<Identity>> }) => {
        const plans = c.state.plans;
        if (s.blueprints.length !== plans.length)
          throw submissionError('blueprints', `must hold exactly ${plans.length} entries, one per piece; got ${s.blueprints.length}`);
        return {
          ...c.state,
          pieces: plans.map((plan, i) => ({
            plan,
            identity: identityFrom(s.blueprints[i]!, pieceDefaults(c, plan, i)),
          })),
        };
      },
    },
  ],
  async finish(c) {
    const written = await writeNewBlueprints(
      c,
      c.state.pieces!.map((p, i) => ({ plan: p.plan, identity: p.identity, changes: { shatter_piece: i + 1, shatter_pieces: c.state.pieces!.length } })),
    );
    return newResult(written, { clusters: c.state.clusters });
  },
};
