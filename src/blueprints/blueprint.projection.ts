import { getNamedType, isObjectType, type FieldNode, type GraphQLNamedType, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import type { Plan } from '../plans/plan';
import { ratingAverageOf, successRateOf, Visibility } from './blueprint.entity';
import type { BlueprintView } from './blueprint.view';

/**
 * The read path of blueprint lists and graphs (forks, parents, children, lineage, registry, trending,
 * provenance, inbox sources). Every list reads plain rows through here:
 *
 * - only the columns the GraphQL selection set needs are selected (`projectionFor(info)`), and `plan`
 *   (the only large column) only when a field derived from the plan is asked for;
 * - rows become plain `BlueprintRow` objects, never managed MikroORM entities: nothing is snapshotted,
 *   nothing enters the identity map, and a read-only answer costs what its rows cost.
 *
 * Writes keep MikroORM (`getBlueprint` and the loaders in blueprint.loaders.ts still return entities).
 * A field this file does not know (another area's new field resolver) selects every column, so it is
 * always correct and only as cheap as before.
 */

/** Every mapped column of `blueprint` (not the generated `search` vector). */
export const blueprintColumns = [
  'id',
  'slug',
  'name',
  'description',
  'tags',
  'visibility',
  'owner_id',
  'team_id',
  'plan',
  'plan_bytes',
  'forked_from_id',
  'module_count',
  'step_count',
  'stars_count',
  'forks_count',
  'executions_started',
  'executions_completed',
  'executions_failed',
  'executions_abandoned',
  'review_count',
  'rating_sum',
  'created_at',
  'updated_at',
] as const;
export type BlueprintColumn = (typeof blueprintColumns)[number];

/** What the access rules need, on every row (see access.ts `guardOf`). */
const alwaysSelected: readonly BlueprintColumn[] = ['id', 'visibility', 'owner_id', 'team_id'];
const executionColumns: readonly BlueprintColumn[] = ['executions_started', 'executions_completed', 'executions_failed', 'executions_abandoned'];

/**
 * GraphQL field of `Blueprint` -> the columns its resolver reads from the root. Fields that only need the
 * id (they load their own data) map to []; fields missing here select every column.
 */
const columnsOfField: Record<string, readonly BlueprintColumn[]> = {
  __typename: [],
  id: [],
  slug: ['slug'],
  name: ['name'],
  description: ['description'],
  tags: ['tags'],
  visibility: [],
  owner: [],
  team: [],
  forkedFrom: ['forked_from_id'],
  moduleCount: ['module_count'],
  stepCount: ['step_count'],
  stars: ['stars_count'],
  forksCount: ['forks_count'],
  createdAt: ['created_at'],
  updatedAt: ['updated_at'],
  successRate: executionColumns,
  reviewCount: ['review_count'],
  ratingAverage: ['review_count', 'rating_sum'],
  reviews: [],
  executionStats: executionColumns,
  // The plan itself is loaded by these fields' resolvers, within the answer's budget (plan-read.ts).
  modules: ['plan_bytes'],
  steps: ['plan_bytes'],
  configuration: ['plan_bytes'],
  designSystem: ['plan_bytes'],
  provenance: ['plan'],
  breedSuggestions: ['plan'],
  forks: [],
  parents: [],
  children: [],
  lineage: [],
  viewerHasStarred: [],
  viewerIsSubscribed: [],
  changelog: [],
  versions: [],
  version: [],
  proposals: [],
  proposal: [],
  executions: [],
};

/**
 * A blueprint read for display: a `BlueprintView`, as the entity is, so resolvers and wire functions serve
 * both alike. Reading `plan` on a row selected without it is a programming error and throws, rather than
 * answering with an empty plan.
 */
export class BlueprintRow implements BlueprintView {
  id!: string;
  slug!: string;
  name!: string;
  description!: string;
  tags!: string[];
  visibility!: Visibility;
  owner!: { id: string };
  team!: { id: string } | null;
  forkedFrom!: { id: string } | null;
  /** The size of the stored plan as JSON text (a generated column): what its plan fields would return. */
  planBytes?: number;
  moduleCount!: number;
  stepCount!: number;
  starsCount!: number;
  forksCount!: number;
  executionsStarted!: number;
  executionsCompleted!: number;
  executionsFailed!: number;
  executionsAbandoned!: number;
  reviewCount!: number;
  ratingSum!: number;
  createdAt!: Date;
  updatedAt!: Date;
  private loadedPlan?: Plan;

  get plan(): Plan {
    if (this.loadedPlan === undefined) throw new Error(`blueprint ${this.id} was read without its plan (see blueprint.projection.ts)`);
    return this.loadedPlan;
  }

  set plan(plan: Plan) {
    this.loadedPlan = plan;
  }

  /** Whether the row was read with its plan (or was given one since). */
  hasPlan(): boolean {
    return this.loadedPlan !== undefined;
  }

  /** GraphQL's `stars`, as on the entity. */
  get stars(): number {
    return this.starsCount;
  }

  /** The entity's rule (completed over ended runs), on plain rows. */
  get successRate(): number | null {
    return successRateOf(this);
  }

  /** The entity's rule (mean rating), on plain rows. */
  get ratingAverage(): number | null {
    return ratingAverageOf(this.reviewCount, this.ratingSum);
  }
}

const asDate = (v: unknown): Date => (v instanceof Date ? v : new Date(v as string));
const ref = (v: unknown): { id: string } | null => (v === null || v === undefined ? null : { id: v as string });

/** How each column lands on a `BlueprintRow`. */
const assign: Record<BlueprintColumn, (row: BlueprintRow, value: unknown) => void> = {
  id: (r, v) => (r.id = v as string),
  slug: (r, v) => (r.slug = v as string),
  name: (r, v) => (r.name = v as string),
  description: (r, v) => (r.description = v as string),
  tags: (r, v) => (r.tags = v as string[]),
  visibility: (r, v) => (r.visibility = v as Visibility),
  owner_id: (r, v) => (r.owner = { id: v as string }),
  team_id: (r, v) => (r.team = ref(v)),
  plan: (r, v) => (r.plan = v as Plan),
  plan_bytes: (r, v) => (r.planBytes = Number(v)),
  forked_from_id: (r, v) => (r.forkedFrom = ref(v)),
  module_count: (r, v) => (r.moduleCount = Number(v)),
  step_count: (r, v) => (r.stepCount = Number(v)),
  stars_count: (r, v) => (r.starsCount = Number(v)),
  forks_count: (r, v) => (r.forksCount = Number(v)),
  executions_started: (r, v) => (r.executionsStarted = Number(v)),
  executions_completed: (r, v) => (r.executionsCompleted = Number(v)),
  executions_failed: (r, v) => (r.executionsFailed = Number(v)),
  executions_abandoned: (r, v) => (r.executionsAbandoned = Number(v)),
  review_count: (r, v) => (r.reviewCount = Number(v)),
  rating_sum: (r, v) => (r.ratingSum = Number(v)),
  created_at: (r, v) => (r.createdAt = asDate(v)),
  updated_at: (r, v) => (r.updatedAt = asDate(v)),
};

/** A set of blueprint columns to read, and how to read them. */
export class BlueprintProjection {
  /** Identifies the column set (DataLoader names include it, so two selections never share a batch). */
  readonly key: string;

  /**
   * @param publicRows the rows are public by the statement that reads them (a fork tree's forks): they
   * carry `visibility` 'public' without reading it, and none of the access columns it would need otherwise.
   */
  constructor(
    readonly columns: readonly BlueprintColumn[],
    readonly publicRows = false,
  ) {
    this.key = (publicRows ? 'public:' : '') + columns.join(',');
  }

  /** Select lists built so far, by alias and prefix (both spelled in code, so few). */
  private readonly selectLists = new Map<string, string>();

  /**
   * `alias.col, ...` for a select list; with `prefix`, each as `<prefix><col>`. Built once per alias and
   * prefix: the same string object every time, so the statement texts made from it hash quickly.
   */
  sql(alias: string, prefix = ''): string {
    const key = prefix ? `${alias} ${prefix}` : alias;
    let list = this.selectLists.get(key);
    if (list === undefined) {
      list = this.columns.map((c) => (prefix ? `${alias}.${c} as ${prefix}${c}` : `${alias}.${c}`)).join(', ');
      this.selectLists.set(key, list);
    }
    return list;
  }

  includes(column: BlueprintColumn): boolean {
    return this.columns.includes(column);
  }

  /** A plain row from a result row holding these columns (under `<prefix><col>` with a prefix). */
  map(row: Record<string, unknown>, prefix = ''): BlueprintRow {
    const out = new BlueprintRow();
    if (this.publicRows) out.visibility = Visibility.PUBLIC;
    for (const c of this.columns) assign[c](out, row[prefix + c]);
    return out;
  }

  /** A plain row from the values of these columns in order (a JSON array built by PostgreSQL). */
  mapValues(values: readonly unknown[]): BlueprintRow {
    const out = new BlueprintRow();
    if (this.publicRows) out.visibility = Visibility.PUBLIC;
    for (let i = 0; i < this.columns.length; i++) assign[this.columns[i]!](out, values[i]);
    return out;
  }
}

/** Every column: REST bodies, MCP tools and fields this file does not know. */
export const fullProjection = new BlueprintProjection(blueprintColumns);

const byColumns = new Map<string, BlueprintProjection>([[fullProjection.key, fullProjection]]);

/**
 * The projection of these columns and the access columns, or of these columns only for rows that are
 * public by their statement (`publicRows`); in table order, so equal sets share one instance.
 */
export function projectionOf(columns: Iterable<BlueprintColumn>, publicRows = false): BlueprintProjection {
  const wanted = new Set<BlueprintColumn>([...(publicRows ? [] : alwaysSelected), ...columns]);
  const ordered = blueprintColumns.filter((c) => wanted.has(c));
  const key = (publicRows ? 'public:' : '') + ordered.join(',');
  let projection = byColumns.get(key);
  if (!projection) byColumns.set(key, (projection = new BlueprintProjection(ordered, publicRows)));
  return projection;
}

/**
 * Every column but the plan and its size: what REST and MCP lists and cards read. A plan can be 1 MiB of
 * JSON, and parsing a page of them for cards that never show them held the event loop for hundreds of ms.
 */
export const listProjection = projectionOf(blueprintColumns.filter((c) => c !== 'plan' && c !== 'plan_bytes'));

/**
 * The names of the `Blueprint` fields selected anywhere below the current field, at the first level of
 * `Blueprint` on each path (`forks { edges { node { ... } } }`, `lineage { nodes { ... } edges { parent { ... } } }`),
 * through fragments; null when an unknown field or abstract type makes it unsafe to narrow.
 */
function blueprintFieldsBelow(info: GraphQLResolveInfo): Set<string> | null {
  const blueprintType = info.schema.getType('Blueprint');
  const names = new Set<string>();
  let unsafe = false;
  const visit = (type: GraphQLNamedType | null | undefined, set: SelectionSetNode) => {
    for (const sel of set.selections) {
      if (sel.kind === 'Field') {
        if (type === blueprintType) names.add(sel.name.value);
        else if (sel.selectionSet) {
          if (!isObjectType(type)) {
            unsafe = true;
            continue;
          }
          const field = type.getFields()[sel.name.value];
          if (field) visit(getNamedType(field.type), sel.selectionSet);
        }
      } else if (sel.kind === 'InlineFragment') {
        visit(sel.typeCondition ? info.schema.getType(sel.typeCondition.name.value) : type, sel.selectionSet);
      } else {
        const fragment = info.fragments[sel.name.value];
        if (fragment) visit(info.schema.getType(fragment.typeCondition.name.value), fragment.selectionSet);
      }
    }
  };
  const returnType = getNamedType(info.returnType);
  for (const node of info.fieldNodes) if (node.selectionSet) visit(returnType, node.selectionSet);
  return unsafe ? null : names;
}

/** The projection for these `Blueprint` field names; null when one of them is not in the field map. */
export function projectionForFields(fields: Iterable<string>): BlueprintProjection | null {
  const columns: BlueprintColumn[] = [];
  for (const f of fields) {
    const cols = columnsOfField[f];
    if (!cols) return null;
    columns.push(...cols);
  }
  return projectionOf(columns);
}

/**
 * `Blueprint` fields whose resolvers read nothing but their own columns of the row: no access guard
 * (`owner_id`, `team_id`), no lookup by the row's id. `visibility` reads no column on public rows.
 */
const ownColumnFields = new Set([
  '__typename',
  'id',
  'slug',
  'name',
  'description',
  'tags',
  'visibility',
  'moduleCount',
  'stepCount',
  'stars',
  'forksCount',
  'createdAt',
  'updatedAt',
  'successRate',
  'reviewCount',
  'ratingAverage',
]);

/**
 * For rows that are public by the statement that reads them: only the columns these fields show, without
 * the access columns (`id` only when asked for). Null when a field needs more; such rows then carry the
 * access columns as every other row does (`projectionForFields`).
 */
export function publicRowsProjection(fields: Iterable<string>): BlueprintProjection | null {
  const wanted = new Set<BlueprintColumn>();
  for (const f of fields) {
    if (!ownColumnFields.has(f)) return null;
    if (f === 'id') wanted.add('id');
    for (const c of columnsOfField[f]!) wanted.add(c);
  }
  return projectionOf(wanted, true);
}

/** Projections per field node: every parent of one level shares one field node, so this runs once per level. */
const memo = new WeakMap<FieldNode, BlueprintProjection>();

/**
 * The columns the selection below this resolver needs from its blueprints. Without `info` (REST, MCP)
 * every column. Memoised per field node of a document (documents are parsed once and cached).
 */
export function projectionFor(info?: GraphQLResolveInfo): BlueprintProjection {
  if (!info) return fullProjection;
  // A field node belongs to one document; the fragment map is that document's, so the node is a safe key.
  const node = info.fieldNodes[0]!;
  const cached = info.fieldNodes.length === 1 ? memo.get(node) : undefined;
  if (cached) return cached;
  const fields = blueprintFieldsBelow(info);
  const projection = (fields && projectionForFields(fields)) ?? fullProjection;
  if (info.fieldNodes.length === 1) memo.set(node, projection);
  return projection;
}
