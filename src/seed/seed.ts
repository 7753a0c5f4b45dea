import type { EntityManager } from '@mikro-orm/postgresql';
import { addEdge, addNode } from '../architectures/architecture-edit.service';
import { createArchitecture } from '../architectures/architecture.service';
import { createUser } from '../auth/auth.service';
import { getBlueprint, starBlueprint } from '../blueprints/blueprint.service';
import { sendBroadcast, setSubscription } from '../broadcasts/broadcast.service';
import { publishChangelogEntry } from '../changelog/changelog.service';
import { forkBlueprint } from '../lineage/fork.service';
import { reviewBlueprint } from '../reviews/review.service';
import { executionStep, reportExecution, startExecution } from '../execution/execution.service';
import { startOperation, submitStep, type OperationView } from '../operations/operation.service';
import type { RequestContext } from '../platform/context';
import { createRequestContext, type AppDeps } from '../platform/http/request-context';
import { originals, type OriginalSpec } from './catalog';
import { moduleLibrary } from './module-library';

/**
 * Builds a realistic demo registry through the services, exactly as API callers would (the create and
 * breed tools, forks, stars, runs, changelog, a broadcast, architectures): nothing is inserted directly.
 * Idempotent: the seed's users are its marker. A complete earlier run makes this a no-op; an interrupted
 * one is reported (reset the database and run again).
 */

/** The seed's people; the first one's name is the marker. */
const PEOPLE = ['demo-ada', 'demo-grace', 'demo-linus', 'demo-margaret', 'demo-ken'];
const DONE_MARKER = 'demo-seed-complete';
const ORIGINALS_PER_TAG = 7;

export interface SeedSummary {
  seeded: boolean;
  blueprints: number;
  forks: number;
  breeds: number;
  architectures: number;
  changelogEntries: number;
  broadcasts: number;
  stars: number;
  reviews: number;
  executionRuns: number;
}

type Person = { name: string; ctx: () => Promise<RequestContext> };

async function principalNamed(em: EntityManager, name: string): Promise<boolean> {
  const rows = await em.getConnection().execute('select 1 from principal where name = ? limit 1', [name]);
  return rows.length > 0;
}

/** Drives one tool operation through the service, one submission per step; returns the finished view. */
async function runTool(
  ctx: () => Promise<RequestContext>,
  start: { toolType: string; sourceBlueprintIds?: string[]; params?: Record<string, unknown> },
  submissions: Array<(op: OperationView) => unknown>,
): Promise<OperationView> {
  let op = await startOperation(await ctx(), { toolType: start.toolType, sourceBlueprintIds: start.sourceBlueprintIds ?? [], params: start.params ?? {} });
  for (const next of submissions) op = await submitStep(await ctx(), op.operation.id, op.token, next(op));
  if (!op.done) throw new Error(`${start.toolType} did not finish`);
  return op;
}

const newBlueprintId = (op: OperationView) => (op.operation.result as { blueprint_ids: string[] }).blueprint_ids[0]!;

/** The five `create` submissions of an original. */
function createSubmissions(spec: OriginalSpec, visibility: 'public' | 'private') {
  const modules = spec.modules.map((key) => {
    const mod = moduleLibrary[key]!;
    return { key, name: mod.name, summary: mod.summary, kind: mod.kind, depends_on: mod.depends_on.filter((d) => spec.modules.includes(d)) };
  });
  const steps = spec.modules.flatMap((key) => moduleLibrary[key]!.steps.map((s, i) => ({ key: `${key}-${i + 1}`, module_key: key, ...s })));
  return [
    () => ({ modules }),
    () => ({ steps }),
    () => ({ configuration: spec.configuration }),
    () => ({ design_system: spec.designSystem }),
    () => ({ name: spec.name, description: spec.description, tags: spec.tags, visibility }),
  ];
}

export async function seedDemoRegistry(deps: AppDeps, log: (line: string) => void = () => undefined): Promise<SeedSummary> {
  const em = deps.orm.em.fork() as EntityManager;
  const summary: SeedSummary = {
    seeded: false,
    blueprints: 0,
    forks: 0,
    breeds: 0,
    architectures: 0,
    changelogEntries: 0,
    broadcasts: 0,
    stars: 0,
    reviews: 0,
    executionRuns: 0,
  };
  if (await principalNamed(em, DONE_MARKER)) return summary;
  if (await principalNamed(em, PEOPLE[0]!)) throw new Error('An earlier seed was interrupted: reset the database (or drop it) and run `npm run seed` again.');

  const people: Person[] = [];
  for (const name of PEOPLE) {
    const { token } = await createUser(em.fork() as EntityManager, name);
    people.push({ name, ctx: () => createRequestContext(deps, `Bearer ${token}`) });
  }
  const person = (i: number) => people[i % people.length]!;

  // Generation 0: originals through the create tool, by five authors; a few private.
  const specs = originals(ORIGINALS_PER_TAG);
  const gen0: string[] = [];
  const tagOf = new Map<string, string>();
  for (const [i, spec] of specs.entries()) {
    const op = await runTool(
      person(i).ctx,
      { toolType: 'create', params: { language: spec.configuration.language, framework: spec.configuration.framework } },
      createSubmissions(spec, i % 9 === 8 ? 'private' : 'public'),
    );
    const id = newBlueprintId(op);
    gen0.push(id);
    tagOf.set(id, spec.tag);
    summary.blueprints += 1;
  }
  log(`${gen0.length} original blueprints`);
  const publicGen0 = gen0.filter((_, i) => i % 9 !== 8);

  // Forks and breeds, three generations deep: each generation forks and breeds the previous one.
  const fork = async (by: number, id: string) => {
    const bp = await forkBlueprint(await person(by).ctx(), id);
    summary.blueprints += 1;
    summary.forks += 1;
    return bp.id;
  };
  const breed = async (by: number, parents: string[], name: string) => {
    const ctx = await person(by).ctx();
    const sources = await Promise.all(parents.map((id) => getBlueprint(ctx, id)));
    const chosen = new Map<string, string>();
    for (const source of sources) for (const mod of source.plan.modules) if (!chosen.has(mod.key)) chosen.set(mod.key, source.id);
    const op = await runTool(
      person(by).ctx,
      { toolType: 'breed', sourceBlueprintIds: parents, params: { description: `Offspring of ${sources.map((s) => s.name).join(' and ')}` } },
      [
        () => ({ modules: [...chosen].map(([key, from]) => ({ key, from })), configuration_from: parents[0], design_system_from: parents[1] }),
        () => ({ name, tags: [...new Set(sources.flatMap((s) => s.tags))].slice(0, 6), visibility: 'public' }),
      ],
    );
    summary.blueprints += 1;
    summary.breeds += 1;
    return newBlueprintId(op);
  };

  const gen1: string[] = [];
  for (let i = 0; i < 9; i++) gen1.push(await fork(i + 1, publicGen0[i * 3]!));
  // Cross-tag breeds: a SaaS with a dashboard, a shop with an API, ...
  const byTag = (tag: string) => publicGen0.filter((id) => tagOf.get(id) === tag);
  gen1.push(await breed(0, [byTag('saas')[0]!, byTag('dashboard')[0]!], 'Analytics SaaS'));
  gen1.push(await breed(1, [byTag('e-commerce')[0]!, byTag('api')[0]!], 'Headless Commerce API'));
  gen1.push(await breed(2, [byTag('cli')[0]!, byTag('api')[1]!], 'API Admin CLI'));
  gen1.push(await breed(3, [byTag('dashboard')[1]!, byTag('e-commerce')[1]!, byTag('saas')[1]!], 'Merchant Dashboard'));
  const gen2: string[] = [];
  for (let i = 0; i < 7; i++) gen2.push(await fork(i + 2, gen1[i]!));
  gen2.push(await breed(4, [gen1[9]!, gen1[10]!], 'Analytics Commerce Suite'));
  gen2.push(await breed(0, [gen1[11]!, gen1[0]!], 'Ops Toolkit'));
  const gen3: string[] = [];
  for (let i = 0; i < 4; i++) gen3.push(await fork(i + 3, gen2[i]!));
  gen3.push(await breed(1, [gen2[7]!, gen2[8]!], 'Commerce Platform'));
  log(`${summary.forks} forks and ${summary.breeds} breeds over three generations`);

  // Stars: everyone stars a rotating handful; the first originals are the most popular.
  const all = [...publicGen0, ...gen1, ...gen2, ...gen3];
  for (let p = 0; p < people.length; p++) {
    for (let i = 0; i < all.length; i++) {
      if ((i + p) % 4 !== 0 && i > 5) continue;
      await starBlueprint(await person(p).ctx(), all[i]!, true);
      summary.stars += 1;
    }
  }

  // Reviews: two or three people rate each of the first originals (never their own), so ratings show.
  const reviewTexts = [
    [5, 'Clear modules and acceptance checks; the agent finished it in one go.'],
    [4, 'Solid plan. The deployment step needed one more check for secrets.'],
    [3, 'Works, but the data model step is too big for one run.'],
  ] as const;
  for (let i = 0; i < 10 && i < publicGen0.length; i++) {
    const id = publicGen0[i]!;
    const ownerIndex = gen0.indexOf(id) % people.length;
    for (let k = 1; k <= 2 + (i % 2); k++) {
      const [rating, body] = reviewTexts[(i + k) % reviewTexts.length]!;
      await reviewBlueprint(await person(ownerIndex + k).ctx(), id, { rating, body });
      summary.reviews += 1;
    }
  }

  // Execution runs: completed and failed, so success rates and trending have data.
  for (let i = 0; i < 24; i++) {
    const id = all[i % all.length]!;
    const runner = person(i + 1);
    const start = await startExecution(await runner.ctx(), id);
    summary.executionRuns += 1;
    const total = start.stageTokens.length;
    if (i % 5 === 4) {
      await reportExecution(await runner.ctx(), start.run.id, 'failed', 'The payment provider sandbox was down.');
      continue;
    }
    if (i % 7 === 6) continue; // left running: abandoned after the idle timeout
    for (let n = 1; n <= total; n++) await executionStep(await runner.ctx(), id, n, start.stageTokens[n - 1]);
  }

  // Changelog entries on the popular originals, subscriptions, and one broadcast to forks and subscribers.
  for (let i = 0; i < 8; i++) {
    const id = publicGen0[i]!;
    const owner = person(gen0.indexOf(id));
    await publishChangelogEntry(await owner.ctx(), id, { title: 'v1.0: first release', body: 'Modules, steps and acceptance checks for the first release.' });
    summary.changelogEntries += 1;
    if (i % 2 === 0) {
      await publishChangelogEntry(await owner.ctx(), id, { title: 'v1.1: hardening', body: 'Rate limits on sign-in and stricter input validation.' });
      summary.changelogEntries += 1;
    }
  }
  await setSubscription(await person(4).ctx(), publicGen0[0]!, true);
  await setSubscription(await person(3).ctx(), publicGen0[0]!, true);
  await sendBroadcast(await person(gen0.indexOf(publicGen0[0]!)).ctx(), publicGen0[0]!, {
    message: 'v1.1 hardens sign-in (rate limits, argon2id). Forks: merge upstream to pick it up.',
    type: 'security',
    severity: 'minor',
  });
  summary.broadcasts += 1;

  // Architectures with every kind of edge: drawn ones and the lineage edges computed from forks/breeds.
  const architectures: Array<{ name: string; nodes: string[]; edges: Array<[number, number, string, string | null]> }> = [
    {
      name: 'Commerce Platform Architecture',
      nodes: [byTag('e-commerce')[0]!, gen1[10]!, byTag('api')[0]!, byTag('saas')[0]!, byTag('dashboard')[0]!],
      edges: [
        [0, 2, 'api_call', null],
        [1, 2, 'api_call', 'checkout calls payments'],
        [0, 3, 'auth', null],
        [0, 4, 'event', 'order.created'],
        [3, 4, 'shared_db', null],
        [4, 3, 'custom', 'weekly report email'],
      ],
    },
    {
      name: 'Developer Tooling',
      nodes: [byTag('cli')[0]!, gen1[11]!, byTag('api')[1]!, gen2[8]!],
      edges: [
        [0, 2, 'api_call', null],
        [1, 2, 'auth', null],
        [3, 2, 'event', 'deploy.finished'],
        [0, 3, 'custom', 'shares the config format'],
      ],
    },
    {
      name: 'Analytics Stack',
      nodes: [byTag('dashboard')[0]!, gen1[9]!, gen2[7]!, byTag('saas')[0]!, gen1[0]!],
      edges: [
        [0, 3, 'shared_db', null],
        [1, 3, 'auth', null],
        [2, 0, 'event', 'metrics.ingested'],
        [2, 1, 'api_call', null],
      ],
    },
  ];
  for (const [a, spec] of architectures.entries()) {
    const author = person(a);
    const arch = await createArchitecture(await author.ctx(), {
      name: spec.name,
      description: `${spec.name}: blueprints from the demo registry and how they talk.`,
      visibility: 'public',
    });
    const nodeIds: string[] = [];
    for (const [i, id] of spec.nodes.entries())
      nodeIds.push((await addNode(await author.ctx(), arch.slug, { blueprint_id: id, position_x: 220 * (i % 3), position_y: 160 * Math.floor(i / 3) })).id);
    for (const [from, to, edge_type, label] of spec.edges)
      await addEdge(await author.ctx(), arch.slug, { source_node_id: nodeIds[from]!, target_node_id: nodeIds[to]!, edge_type, ...(label ? { label } : {}) });
    summary.architectures += 1;
  }

  await createUser(em.fork() as EntityManager, DONE_MARKER);
  summary.seeded = true;
  return summary;
}
