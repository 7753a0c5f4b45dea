/**
 * fast-check arbitraries that generate valid plans, plus an independent validity check. Keys come
 * from small shared pools so that independently generated plans overlap (and conflict) often.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { emptyPlan, type JsonObject, type Plan, type PlanModule, type PlanStep } from '../../../src/plans/plan';
import { planIssues } from '../../../src/plans/plan.validation';
import { keyPattern } from '../../../src/plans/plan.schema';

export const moduleKeyPool = ['api', 'web', 'db', 'auth', 'cache', 'queue', 'search', 'billing', 'mail', 'constructor'];
export const stepKeyPool = Array.from({ length: 14 }, (_, i) => `step-${i + 1}`);
const kinds = ['frontend', 'backend', 'data', 'infra'];

/** Small JSON objects, with awkward keys (`constructor`, `x.y`) and values of every JSON type. */
export const arbJsonObject: fc.Arbitrary<JsonObject> = fc.dictionary(
  fc.constantFrom('language', 'framework', 'theme', 'database', 'constructor'),
  fc.oneof(
    fc.constantFrom<unknown>('typescript', 'go', 1, 2, true, null),
    fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 2 }),
    fc.dictionary(fc.constantFrom('primary', 'font', 'x.y'), fc.constantFrom<unknown>('red', 'blue', 12, {}), { noNullPrototype: true }),
  ),
  { noNullPrototype: true, maxKeys: 4 },
);

/** Freezes a plan deeply so that a function that edits its input throws instead of passing. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * A valid plan: unique keys, module `i` depends only on modules generated before it (so the graph
 * is acyclic), then the module array is shuffled so that no code can rely on that order.
 */
export const arbPlan: fc.Arbitrary<Plan> = fc
  .uniqueArray(fc.constantFrom(...moduleKeyPool), { maxLength: 7 })
  .chain((keys) => {
    const modules = fc.tuple(
      ...keys.map((key, i) =>
        fc.record({
          key: fc.constant(key),
          name: fc.constantFrom('Core', 'Edge'),
          summary: fc.constantFrom('', 'Does one thing well.'),
          kind: fc.constantFrom(...kinds),
          dependsOn: fc.subarray(keys.slice(0, i)),
        }),
      ),
    );
    const steps =
      keys.length === 0
        ? fc.constant<PlanStep[]>([])
        : fc.uniqueArray(fc.constantFrom(...stepKeyPool), { maxLength: 10 }).chain((stepKeys) =>
            fc.tuple(
              ...stepKeys.map((key) =>
                fc.record({
                  key: fc.constant(key),
                  moduleKey: fc.constantFrom(...keys),
                  title: fc.constantFrom('Build it', 'Test it'),
                  instructions: fc.constantFrom('', 'Carefully.'),
                  acceptance: fc.subarray(['it works', 'it is tested', 'it is documented']),
                }),
              ),
            ),
          );
    return fc.record({ modules, steps, configuration: arbJsonObject, designSystem: arbJsonObject });
  })
  .chain((plan) =>
    fc
      .shuffledSubarray(plan.modules as PlanModule[], { minLength: plan.modules.length, maxLength: plan.modules.length })
      .map((modules) => deepFreeze({ ...plan, modules, steps: plan.steps as PlanStep[] })),
  );

/** How `derive` edits a plan. */
interface Edit {
  keepModules: string[];
  retitle: { key: string; suffix: string }[];
  extra: Plan;
  configuration: 'keep' | 'replace' | 'overlay';
}

/**
 * A plan derived from `base` the way a fork or an upstream evolves: some modules removed (with
 * their steps and the dependencies on them), some steps retitled, modules and steps of another plan
 * added when their keys are free, configuration kept, replaced or overlaid. The result stays
 * valid: kept modules never depend on added ones, and added ones come from an acyclic plan.
 */
export function derive(base: Plan, edit: Edit): Plan {
  const kept = new Set(edit.keepModules);
  const modules: PlanModule[] = base.modules.filter((m) => kept.has(m.key)).map((m) => ({ ...m, dependsOn: m.dependsOn.filter((d) => kept.has(d)) }));
  const added = edit.extra.modules.filter((m) => !kept.has(m.key));
  const all = new Set([...kept, ...added.map((m) => m.key)]);
  modules.push(...added.map((m) => ({ ...m, dependsOn: m.dependsOn.filter((d) => all.has(d)) })));
  const retitle = new Map(edit.retitle.map((r) => [r.key, r.suffix]));
  const steps: PlanStep[] = base.steps
    .filter((s) => kept.has(s.moduleKey))
    .map((s) => (retitle.has(s.key) ? { ...s, title: `${s.title} ${retitle.get(s.key)}` } : s));
  const stepKeys = new Set(steps.map((s) => s.key));
  steps.push(...edit.extra.steps.filter((s) => !stepKeys.has(s.key) && all.has(s.moduleKey)));
  const configuration =
    edit.configuration === 'keep'
      ? base.configuration
      : edit.configuration === 'replace'
        ? edit.extra.configuration
        : { ...base.configuration, ...edit.extra.configuration };
  return deepFreeze({ modules, steps, configuration, designSystem: base.designSystem });
}

/**
 * Plans derived from `base` (see {@link derive}). `small` edits remove at most one module and
 * retitle at most two steps, so that two derived plans conflict less often.
 */
export const arbDerived = (base: Plan, options: { small?: boolean } = {}): fc.Arbitrary<Plan> => {
  const keys = base.modules.map((m) => m.key);
  return fc
    .record({
      keepModules: options.small
        ? fc.subarray(keys, { maxLength: Math.min(1, keys.length) }).map((gone) => keys.filter((k) => !gone.includes(k)))
        : fc.subarray(keys),
      retitle: fc
        .subarray(
          base.steps.map((s) => s.key),
          options.small ? { maxLength: Math.min(2, base.steps.length) } : {},
        )
        .chain((stepKeys) => fc.tuple(...stepKeys.map((key) => fc.record({ key: fc.constant(key), suffix: fc.constantFrom('v2', 'v3') })))),
      extra: options.small ? fc.oneof(fc.constant(emptyPlan()), arbPlan) : arbPlan,
      configuration: fc.constantFrom<Edit['configuration']>(...(options.small ? (['keep', 'overlay'] as const) : (['keep', 'replace', 'overlay'] as const))),
    })
    .map((edit) => derive(base, edit));
};

/** A base plan and two plans derived from it: a fork point, ours and theirs. */
export const arbMergeTriple = (options: { small?: boolean } = {}): fc.Arbitrary<[Plan, Plan, Plan]> =>
  arbPlan.chain((base) => fc.tuple(fc.constant(base), arbDerived(base, options), arbDerived(base, options)));

const generousBounds = { planMaxModules: 10_000, planMaxSteps: 100_000, planMaxBytes: 100 * 1024 * 1024 };
const keyRe = new RegExp(keyPattern);

/**
 * Every rule a plan breaks: the product's own rules (`planIssues`: unique keys, resolving references,
 * acyclic modules) plus the schema rules the algebra could break (key pattern, unique dependencies,
 * title length).
 */
export function planProblems(plan: Plan): string[] {
  const problems = planIssues(plan, generousBounds).map((i) => `${i.path}: ${i.message}`);
  for (const m of plan.modules) {
    if (!keyRe.test(m.key) || m.key.length > 100) problems.push(`bad module key ${m.key}`);
    if (new Set(m.dependsOn).size !== m.dependsOn.length) problems.push(`duplicate dependency in ${m.key}`);
  }
  for (const section of ['configuration', 'designSystem'] as const) {
    // Plain JSON only: a function or an inherited value leaking in would not survive storage.
    if (!isDeepStrictEqual(JSON.parse(JSON.stringify(plan[section])), plan[section])) problems.push(`${section} is not plain JSON`);
  }
  for (const s of plan.steps) {
    if (!keyRe.test(s.key) || s.key.length > 100) problems.push(`bad step key ${s.key}`);
    if (s.title.length < 1 || s.title.length > 300) problems.push(`bad title in ${s.key}`);
  }
  return problems;
}

/**
 * A plan with order that carries no meaning removed: modules sorted by key, dependencies sorted.
 * Steps keep their order (it is run order) unless `steps: 'sorted'`.
 */
export function canonical(plan: Plan, options: { steps?: 'ordered' | 'sorted' } = {}): Plan {
  const byKey = <T extends { key: string }>(a: T, b: T) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  const steps = plan.steps.map((s) => ({ ...s, acceptance: [...s.acceptance] }));
  return {
    modules: plan.modules.map((m) => ({ ...m, dependsOn: [...m.dependsOn].sort() })).sort(byKey),
    steps: options.steps === 'sorted' ? steps.sort(byKey) : steps,
    configuration: plan.configuration,
    designSystem: plan.designSystem,
  };
}

export const moduleKeys = (plan: Plan) => plan.modules.map((m) => m.key);
export const stepKeys = (plan: Plan) => plan.steps.map((s) => s.key);

/**
 * A small but realistic plan used by the example-based tests:
 * db <- api <- web, db <- auth <- web, and docs on its own.
 */
export function shopPlan(): Plan {
  const mod = (key: string, kind: string, dependsOn: string[] = []): PlanModule => ({
    key,
    name: key.toUpperCase(),
    summary: `The ${key} module`,
    kind,
    dependsOn,
  });
  const step = (key: string, moduleKey: string, acceptance: string[] = ['it works']): PlanStep => ({
    key,
    moduleKey,
    title: `Do ${key}`,
    instructions: `Implement ${key}.`,
    acceptance,
  });
  return deepFreeze({
    modules: [mod('db', 'data'), mod('api', 'backend', ['db']), mod('auth', 'backend', ['db']), mod('web', 'frontend', ['api', 'auth']), mod('docs', 'docs')],
    steps: [
      step('db-schema', 'db'),
      step('db-migrations', 'db'),
      step('api-routes', 'api'),
      step('auth-login', 'auth', []),
      step('web-pages', 'web'),
      step('web-checkout', 'web'),
      step('docs-readme', 'docs'),
    ],
    configuration: { language: 'typescript', framework: 'fastify', database: { engine: 'postgres', version: 16 } },
    designSystem: { theme: { colors: { primary: '#0055ff', accent: '#ff9900' }, font: 'Inter' } },
  });
}

/** A mutable deep copy of a frozen fixture, for tests that build variants of it. */
export function thaw<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
