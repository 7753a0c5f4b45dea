import DataLoader from 'dataloader';
import { getNamedType, isObjectType, type FieldNode, type GraphQLField, type GraphQLResolveInfo, type GraphQLSchema, type SelectionSetNode } from 'graphql';
import { getArgumentValues } from 'graphql/execution/values';
import type { BlueprintView } from '../blueprints/blueprint.view';
import { edgeNodes, refuseOverBudgetPage } from '../blueprints/plan-read';
import { rowExtra } from '../blueprints/blueprint.loaders';
import { projectionFor, projectionForFields, publicRowsProjection, type BlueprintProjection } from '../blueprints/blueprint.projection';
import { readBlueprint } from '../blueprints/blueprint.service';
import { pageInfoOf, type PageInfo } from '../platform/graphql/graphql-connection';
import { orNull } from '../platform/graphql/or-null';
import type { Limits } from '../platform/config';
import { sqlEm, type RequestContext } from '../platform/context';
import { executeShaped, type SqlFragment } from '../platform/sql/database';
import { keysTable } from '../platform/sql/pg-array';
import { encodeCursor, pageFromConnectionArgs, type PageRequest } from '../platform/pagination';

/**
 * Nested `forks` connections read as one SQL statement, the way PostGraphile builds its answers: the
 * whole subtree below the first `forks` field (pages, counts, the selected columns of every node) is one
 * query that nests `json_agg` / `json_build_object` per level, and the answer arrives as plain objects,
 * so graphql-js resolves every nested `forks` field synchronously from what is already there.
 *
 * It applies when everything under `forks` is a plain selection: connection fields, node fields the
 * projection knows, and at most one nested `forks` per level, without directives. Anything else uses the
 * batched path (one statement per level, lineage.service.ts), with the same answers.
 */

/** One level of the tree: its page, the columns of its nodes, and the nested `forks` below them. */
interface ForkLevel {
  page: PageRequest;
  /** Whether `totalCount` or `pageInfo` is asked for: the count of all forks is read only then. */
  counted: boolean;
  /** Null when only `totalCount` is asked for at this level. */
  nodes: BlueprintProjection | null;
  child: { fieldNode: FieldNode; level: ForkLevel } | null;
}

/** A connection with everything already loaded: plain properties, resolved synchronously. */
export interface LoadedConnection {
  totalCount: number;
  readonly edges: ReadonlyArray<{ cursor: string; node: BlueprintView }>;
  pageInfo: PageInfo;
  /** The projection its rows were read with (what `refuseOverBudgetPage` checks), when known. */
  readonly projection?: BlueprintProjection | null;
}

const connectionFields = new Set(['totalCount', 'edges', 'pageInfo', '__typename']);
const edgeFields = new Set(['cursor', 'node', '__typename']);

/** Fields of a selection set, flattened through fragments; null when a directive makes it conditional. */
function fieldsOf(set: SelectionSetNode | undefined, info: GraphQLResolveInfo): FieldNode[] | null {
  const out: FieldNode[] = [];
  for (const sel of set?.selections ?? []) {
    if (sel.directives?.length) return null;
    if (sel.kind === 'Field') out.push(sel);
    else {
      const inner = fieldsOf(sel.kind === 'InlineFragment' ? sel.selectionSet : info.fragments[sel.name.value]?.selectionSet, info);
      if (!inner) return null;
      out.push(...inner);
    }
  }
  return out;
}

function levelOf(fieldNode: FieldNode, field: GraphQLField<unknown, unknown>, info: GraphQLResolveInfo, limits: Limits): ForkLevel | null {
  let page: PageRequest;
  try {
    page = pageFromConnectionArgs(getArgumentValues(field, fieldNode, info.variableValues) as { first?: number; after?: string }, limits);
  } catch {
    return null; // the batched path reports the error
  }
  const top = fieldsOf(fieldNode.selectionSet, info);
  if (!top || top.some((f) => !connectionFields.has(f.name.value))) return null;
  const nodeFieldNodes: FieldNode[] = [];
  let wantsPage = false;
  const counted = top.some((f) => f.name.value === 'totalCount' || f.name.value === 'pageInfo');
  for (const f of top) {
    if (f.name.value === 'pageInfo') wantsPage = true;
    if (f.name.value !== 'edges') continue;
    wantsPage = true;
    const edge = fieldsOf(f.selectionSet, info);
    if (!edge || edge.some((e) => !edgeFields.has(e.name.value))) return null;
    for (const e of edge)
      if (e.name.value === 'node') {
        const inner = fieldsOf(e.selectionSet, info);
        if (!inner) return null;
        nodeFieldNodes.push(...inner);
      }
  }
  if (!wantsPage) return { page, counted, nodes: null, child: null };
  const child = forksAmong(nodeFieldNodes, info, limits);
  if (child === null) return null;
  // Forks in the tree are public by the statement, so plain fields need no access columns.
  const own = nodeFieldNodes.map((f) => f.name.value).filter((name) => name !== 'forks');
  const nodes = publicRowsProjection(own) ?? projectionForFields(own);
  return nodes ? { page, counted, nodes, child: child ?? null } : null;
}

/** `Blueprint.forks` of this schema. */
function blueprintForksField(schema: GraphQLSchema): GraphQLField<unknown, unknown> | undefined {
  const blueprintType = schema.getType('Blueprint');
  return isObjectType(blueprintType) ? blueprintType.getFields().forks : undefined;
}

/**
 * The `forks` among these `Blueprint` fields, planned as one statement: undefined when there is none,
 * null when there are several or it cannot be read in one statement.
 */
function forksAmong(fields: FieldNode[], info: GraphQLResolveInfo, limits: Limits): NonNullable<ForkLevel['child']> | null | undefined {
  const forks = fields.filter((f) => f.name.value === 'forks');
  if (forks.length === 0) return undefined;
  const field = blueprintForksField(info.schema);
  const level = forks.length === 1 && field ? levelOf(forks[0]!, field, info, limits) : null;
  return level ? { fieldNode: forks[0]!, level } : null;
}

/** The tree below this `forks` field when it can be read in one statement, else null. */
export function forkTreePlan(info: GraphQLResolveInfo, limits: Limits): ForkLevel | null {
  if (info.fieldNodes.length !== 1 || !isObjectType(getNamedType(info.parentType))) return null;
  const field = info.parentType.getFields()[info.fieldName];
  return field ? levelOf(info.fieldNodes[0]!, field, info, limits) : null;
}

/**
 * A JSON expression for the forks of `parent` at `level` (aliases are unique per depth): the array
 * `[total, items]`, each item the array of the node's selected columns in order and, last, its own level.
 * Arrays rather than objects: no key is repeated per node, so PostgreSQL writes and Node parses a
 * fraction of the bytes. `total` is null when the level's count is not asked for.
 */
function levelSql(level: ForkLevel, parent: string, depth: number, params: unknown[]): string {
  const count = level.counted
    ? `(select count(*) from blueprint c${depth} where c${depth}.forked_from_id = ${parent} and c${depth}.visibility = 'public')`
    : 'null::bigint';
  if (!level.nodes) return `json_build_array(${count})`;
  const a = `f${depth}`;
  const values = level.nodes.columns.map((c) => `${a}.${c}`);
  if (level.child) values.push(levelSql(level.child.level, `${a}.id`, depth + 1, params));
  // Only the selected columns (never a plan nobody asked for), plus what orders and links the levels.
  const inner = [...new Set([...level.nodes.columns, 'id', 'created_at'])].map((c) => `s${depth}.${c}`).join(', ');
  // Offsets and limits are parameters: the text depends only on the selection's shape, so it is prepared
  // once per shape (executeShaped), whatever page is asked for. They follow the child level's in the text.
  params.push(level.page.offset, level.page.limit);
  return `json_build_array(${count}, coalesce((select json_agg(json_build_array(${values.join(', ')}) order by ${a}.created_at, ${a}.id)
    from (select ${inner} from blueprint s${depth} where s${depth}.forked_from_id = ${parent} and s${depth}.visibility = 'public'
           order by s${depth}.created_at, s${depth}.id offset ?::int limit ?::int) ${a}), '[]'::json))`;
}

/** The fork tree below `parent` as an SQL expression and its parameters. */
function treeSql(level: ForkLevel, parent: string): SqlFragment {
  const params: unknown[] = [];
  const sql = levelSql(level, parent, 1, params);
  return { sql, params };
}

/** `[total, items]` as levelSql builds it; each item is the node's column values, then its own level. */
type LevelJson = [total: number | string | null, items?: unknown[][]];

/**
 * The connection the tree statement read for a row, which knows the `forks` field node it answers: a
 * property of the row under a symbol (JSON and the API never see symbol keys), rather than a WeakMap entry
 * and a Map per node, which a tree of 2,551 nodes made 2,551 of per request for the garbage collector to
 * trace. The connection is the property itself (no holder object per row), and every empty page shares
 * one frozen edge list: of a breadth-50 tree's 2,551 connections, 2,500 are leaves' counts.
 */
const PREFETCHED = Symbol('prefetched forks');
interface Prefetched {
  [PREFETCHED]?: PrefetchedConnection;
}

function setPrefetched(row: object, fieldNode: FieldNode, connection: PrefetchedConnection): void {
  connection.fieldNode = fieldNode;
  (row as Prefetched)[PREFETCHED] = connection;
}

const NO_ROWS: readonly unknown[][] = Object.freeze([]);
const NO_EDGES: readonly PrefetchedEdge[] = Object.freeze([]);

function toConnection(json: LevelJson, level: ForkLevel): PrefetchedConnection {
  const total = json[0];
  const items = json[1] ?? NO_ROWS;
  const nodes = level.nodes;
  const child = level.child;
  let edges = NO_EDGES;
  if (nodes && items.length > 0) {
    const offset = level.page.offset;
    const out: PrefetchedEdge[] = new Array(items.length);
    for (let i = 0; i < items.length; i++) {
      const values = items[i]!;
      const row = nodes.mapValues(values);
      if (child) setPrefetched(row, child.fieldNode, toConnection(values[nodes.columns.length] as LevelJson, child.level));
      out[i] = new PrefetchedEdge(offset + i, row);
    }
    edges = out;
  }
  return new PrefetchedConnection(level.page.offset, edges, total === null ? null : Number(total), nodes);
}

/** An edge whose cursor is encoded only when it is asked for. */
class PrefetchedEdge {
  constructor(
    private readonly position: number,
    readonly node: BlueprintView,
  ) {}

  get cursor(): string {
    return encodeCursor(this.position);
  }
}

/** A connection read by the tree statement; its count exists when the plan asked for it. */
class PrefetchedConnection implements LoadedConnection {
  /** The `forks` field node this connection answers, once it is stored on its row (`setPrefetched`). */
  fieldNode: FieldNode | null = null;

  constructor(
    private readonly offset: number,
    readonly edges: readonly PrefetchedEdge[],
    private readonly total: number | null,
    readonly projection: BlueprintProjection | null,
  ) {}

  get totalCount(): number {
    if (this.total === null) throw new Error("the fork tree was planned without this level's count (fork-tree.ts levelOf)");
    return this.total;
  }

  get pageInfo(): PageInfo {
    return pageInfoOf(this.offset, this.edges.length, this.totalCount);
  }
}

/** The connection an enclosing fork tree already loaded for this row and field, if any. */
export function prefetchedForks(row: object, info: GraphQLResolveInfo): LoadedConnection | undefined {
  const found = (row as Prefetched)[PREFETCHED];
  return found && info.fieldNodes.length === 1 && found.fieldNode === info.fieldNodes[0] ? found : undefined;
}

/** The fork tree of many parents with one plan: one statement for all of them. */
export function forkTree(ctx: RequestContext, parentId: string, plan: ForkLevel): Promise<LoadedConnection> {
  const tree = treeSql(plan, 'p.parent_id');
  return ctx.loaders
    .get(
      `lineage.forkTree:${tree.sql}:${tree.params.join(',')}`,
      () =>
        new DataLoader<string, LoadedConnection>(async (parentIds) => {
          const parents = keysTable(parentIds, 'uuid', 'p', 'parent_id');
          const rows = await executeShaped<{ parent_id: string; tree: LevelJson }>(sqlEm(ctx), {
            sql: `select p.parent_id, ${tree.sql} as tree from ${parents.sql}`,
            params: [...tree.params, ...parents.params],
          });
          const byParent = new Map(rows.map((r) => [r.parent_id, r.tree]));
          return parentIds.map((id) => toConnection(byParent.get(id) ?? [0, []], plan));
        }),
    )
    .load(parentId);
}

/**
 * Answers `Blueprint.forks` synchronously when an enclosing fork tree already loaded it. type-graphql
 * makes every resolver with an `@Arg` asynchronous (argument validation is an async step), and one
 * promise per node makes graphql-js settle every object of the tree through promises; the tree's
 * inner levels need neither the arguments (they were read when the tree was planned) nor a promise.
 */
export function withPrefetchedForks(schema: GraphQLSchema): void {
  const field = blueprintForksField(schema);
  const resolve = field?.resolve;
  if (!field || !resolve) throw new Error('Blueprint.forks is missing from the schema');
  field.resolve = (root, args, context, info) => {
    const loaded = root !== null && typeof root === 'object' && prefetchedForks(root, info);
    if (!loaded) return resolve(root, args, context, info);
    // A level whose plans cannot fit the answer is refused here, once, before its items resolve.
    return loaded.projection ? refuseOverBudgetPage(context as RequestContext, loaded.projection, 'Blueprint.forks', loaded, edgeNodes) : loaded;
  };
}

/** The one-statement tree below the `forks` field of a `blueprint(...)` root selection, if there is one. */
function forkTreeBelowRoot(info: GraphQLResolveInfo, limits: Limits): NonNullable<ForkLevel['child']> | null {
  const fields = info.fieldNodes.length === 1 ? fieldsOf(info.fieldNodes[0]!.selectionSet, info) : null;
  return (fields && forksAmong(fields, info, limits)) ?? null;
}

/**
 * `blueprint(id:) { ... forks { ... } }` read in one statement: the root row and, as one more column of
 * it, the whole fork tree below (public forks only, so it is safe to compute before the root's access
 * check). Without a one-statement tree below it, or by slug, the query resolves as it always does.
 */
export function withRootForkTree(schema: GraphQLSchema): void {
  const queryType = schema.getQueryType();
  const field = queryType?.getFields().blueprint;
  const resolve = field?.resolve;
  if (!field || !resolve) throw new Error('Query.blueprint is missing from the schema');
  field.resolve = (root, args: { id?: string | null; slug?: string | null }, context: RequestContext, info) => {
    const below = typeof args.id === 'string' && (args.slug === undefined || args.slug === null) ? forkTreeBelowRoot(info, context.config.limits) : null;
    if (!below) return resolve(root, args, context, info);
    return orNull(
      readBlueprint(context, args.id!, projectionFor(info), treeSql(below.level, 'b.id')).then((row) => {
        setPrefetched(row, below.fieldNode, toConnection(rowExtra(row) as LevelJson, below.level));
        return row;
      }),
    );
  };
}
