import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { specifiedRules, validate } from 'graphql';
import { graphQLSchema } from '../src/app';
import { defaultLimits } from '../src/platform/config';
import { assertNodeLimit, limitRules, parseLimited } from '../src/platform/graphql/graphql-limits';

/**
 * How long the server's GraphQL checks take to refuse hostile documents (the goal: < 50 ms each): the
 * same parse, validation rules and node count that Apollo and graphql-ws run, in process, no network.
 * Prints the median and worst of 20 runs per document. `npm run bench:graphql-abuse`.
 */
function nestedFanOut(levels: number): string {
  const fragments = Array.from(
    { length: levels },
    (_, i) => `fragment F${i} on Blueprint { forkedFrom { ...F${i + 1} } forks(first: 1) { edges { node { ...F${i + 1} } } } }`,
  );
  return `query { blueprint(slug: "x") { ...F0 } } ${fragments.join(' ')} fragment F${levels} on Blueprint { id }`;
}

function flatFanOut(levels: number): string {
  const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on Query { ...F${i + 1} a${i}: viewer { id } ...F${i + 1} }`);
  return `query { ...F0 } ${fragments.join(' ')} fragment F${levels} on Query { viewer { id } }`;
}

/** The same alias twice per level, each with the next fragment: the overlapping-fields check compares them. */
function overlappingFanOut(levels: number): string {
  const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on Blueprint { a: forkedFrom { ...F${i + 1} } a: forkedFrom { ...F${i + 1} } }`);
  return `query { blueprint(slug: "x") { ...F0 } } ${fragments.join(' ')} fragment F${levels} on Blueprint { id }`;
}

const documents: Array<[string, string]> = [
  ['nested fragment fan-out, 24 levels (the probe: 2.1 s before)', nestedFanOut(24)],
  ['nested fragment fan-out, 26 levels (the probe: 9.9 s before)', nestedFanOut(26)],
  ['nested fragment fan-out, 30 levels', nestedFanOut(30)],
  ['flat fragment fan-out, 30 levels (2^30 fields expanded; accepted)', flatFanOut(30)],
  ['overlapping aliased fan-out, 30 levels', overlappingFanOut(30)],
  ['fragment cycle', 'query { ...A } fragment A on Query { viewer { id } ...B } fragment B on Query { ...A }'],
  [`${defaultLimits.queryTokensMax + 1} tokens`, `{ ${Array.from({ length: defaultLimits.queryTokensMax }, () => '__typename').join(' ')} }`],
  ['610,100-node query', '{ registry(first: 100) { edges { node { forks(first: 100) { edges { node { forks(first: 60) { totalCount } } } } } } } }'],
];

async function main(): Promise<void> {
  const schema = await graphQLSchema();
  const rules = [...specifiedRules, ...limitRules(defaultLimits)];
  console.log('# bench/graphql-abuse: parse + validate + node count, as the server runs them');
  console.log(
    `node ${process.version}; limits: depth ${defaultLimits.queryDepthMax}, nodes ${defaultLimits.queryNodeMax}, tokens ${defaultLimits.queryTokensMax}`,
  );
  console.log('');
  // warm the JIT, so the figures are the steady state a busy server sees
  for (let i = 0; i < 50; i++) validate(schema, parseLimited(nestedFanOut(10), defaultLimits), rules);
  console.log('| document | size | outcome | median ms | max ms |');
  console.log('|---|---|---|---|---|');
  for (const [name, query] of documents) {
    const times: number[] = [];
    let outcome = '';
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      try {
        const document = parseLimited(query, defaultLimits);
        const errors = validate(schema, document, rules);
        if (errors.length > 0) outcome = `refused: ${errors[0]!.message.slice(0, 70)}`;
        else {
          assertNodeLimit(defaultLimits, schema, document, {}, undefined);
          outcome = 'accepted';
        }
      } catch (err) {
        outcome = `refused: ${(err as Error).message.slice(0, 70)}`;
      }
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    console.log(`| ${name} | ${query.length} B | ${outcome} | ${times[10]!.toFixed(2)} | ${times[19]!.toFixed(2)} |`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
