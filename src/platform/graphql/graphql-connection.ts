import {
  defaultFieldResolver,
  getDirectiveValues,
  getNamedType,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isObjectType,
  type FieldNode,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type SelectionNode,
  type SelectionSetNode,
} from 'graphql';
import { Field, Int, ObjectType, type ClassType } from 'type-graphql';
import { encodeCursor, type PageRequest } from '../pagination';

@ObjectType('PageInfo', { simpleResolvers: true })
export class PageInfo {
  @Field(() => Boolean) hasNextPage!: boolean;
  @Field(() => Boolean) hasPreviousPage!: boolean;
  @Field(() => String, { nullable: true }) startCursor!: string | null;
  @Field(() => String, { nullable: true }) endCursor!: string | null;
}

/** The page info of `count` items read from `offset`, out of `total`. */
export function pageInfoOf(offset: number, count: number, total: number): PageInfo {
  return {
    hasNextPage: offset + count < total,
    hasPreviousPage: offset > 0,
    startCursor: count ? encodeCursor(offset) : null,
    endCursor: count ? encodeCursor(offset + count - 1) : null,
  };
}

/**
 * What a connection field returns: the page it stands for and how to fetch it. The edges and the
 * count are fetched only when selected, through DataLoaders, so a connection nested in a list costs one
 * statement per level, not one per parent.
 */
export class LazyConnection<T, P extends { items: T[]; total: number } = { items: T[]; total: number }> {
  private pagePromise?: Promise<P>;

  constructor(
    readonly page: PageRequest,
    private readonly fetchPage: () => Promise<P>,
    /** A cheaper count when the page itself is not selected; defaults to the page's total. */
    private readonly fetchCount?: () => Promise<number>,
  ) {}

  loadPage(): Promise<P> {
    this.pagePromise ??= this.fetchPage();
    return this.pagePromise;
  }

  // Getters, not methods: graphql-js calls a method found under a field's name, graphql-jit only reads
  // the property; a getter answers both.
  get edges(): Promise<Array<{ cursor: string; node: T }>> {
    return this.loadPage().then(({ items }) => items.map((node, i) => ({ cursor: encodeCursor(this.page.offset + i), node })));
  }

  get pageInfo(): Promise<PageInfo> {
    return this.loadPage().then(({ items, total }) => pageInfoOf(this.page.offset, items.length, total));
  }

  get totalCount(): Promise<number> {
    if (this.pagePromise || !this.fetchCount) return this.loadPage().then((p) => p.total);
    return this.fetchCount();
  }

  /**
   * The selected fields' values as a plain object (what `settleConnections` hands graphql-jit). Every getter
   * is read before the first is awaited, so the page and count loads of sibling connections still meet in
   * one DataLoader batch; `totalCount` last, so that a selected page answers it without a count of its own.
   */
  settle(fieldNames: readonly string[]): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    const pending: Array<Promise<unknown>> = [];
    const counted = fieldNames.includes('totalCount');
    for (const name of counted ? [...fieldNames.filter((n) => n !== 'totalCount'), 'totalCount'] : fieldNames) {
      const value: unknown = (this as unknown as Record<string, unknown>)[name];
      if (value instanceof Promise) pending.push(value.then((v: unknown) => (out[name] = v)));
      else out[name] = value;
    }
    return Promise.all(pending).then(() => out);
  }
}

/** Declares `<Name>Connection` and `<Name>Edge` GraphQL types for node type `Node`. */
export function connectionType<T extends object>(Node: ClassType<T>, name: string) {
  @ObjectType(`${name}Edge`, { simpleResolvers: true })
  class Edge {
    @Field(() => String) cursor!: string;
    @Field(() => Node) node!: T;
  }

  // simpleResolvers: graphql-jit reads these fields inline, with no resolver call per field and item. What
  // reaches them is plain: a LazyConnection (whose getters load, and may fail) is settled by the field that
  // returns it (settleConnections), inside the error handling that field's resolver gets.
  @ObjectType(`${name}Connection`, { simpleResolvers: true })
  class Connection {
    @Field(() => [Edge], { description: 'The page of items, each with its cursor.' })
    edges!: Edge[];

    @Field(() => PageInfo)
    pageInfo!: PageInfo;

    @Field(() => Int, { description: 'All items, on every page.' })
    totalCount!: number;
  }
  return Connection;
}

/**
 * Makes every field that returns a connection (an object type named `...Connection` with `edges`) answer
 * with plain values: a LazyConnection it resolves to is settled before the field resolves (the fields
 * selected on it, honouring @skip and @include), so the connection's own fields need no resolvers (see
 * connectionType). A failed load fails the connection field, where it used to fail its `edges` or
 * `totalCount`; those are non-null, so the answer's data is the same. Anything else passes through.
 * Runs once on the built schema, after the areas' schema hooks.
 */
export function settleConnections(schema: GraphQLSchema): void {
  const isConnection = (type: unknown) => isObjectType(type) && type.name.endsWith('Connection') && 'edges' in type.getFields();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (!isConnection(getNamedType(field.type))) continue;
      const resolve: GraphQLFieldResolver<unknown, unknown> = field.resolve ?? defaultFieldResolver;
      field.resolve = (root, args, context, info) => {
        const value: unknown = resolve(root, args, context, info);
        return value instanceof Promise ? value.then((v: unknown) => settled(v, info)) : settled(value, info);
      };
    }
  }
}

function settled(value: unknown, info: GraphQLResolveInfo): unknown {
  return value instanceof LazyConnection ? value.settle(fieldNamesToSettle(info)) : value;
}

/** Per field node, the names selected under it (less `__typename`) when no directive makes them conditional. */
const unconditional = new WeakMap<FieldNode, readonly string[]>();

/** The fields a connection is settled with: those selected under the current field, less `__typename`. */
function fieldNamesToSettle(info: GraphQLResolveInfo): readonly string[] {
  const key = info.fieldNodes.length === 1 ? info.fieldNodes[0]! : undefined;
  const known = key && unconditional.get(key);
  if (known) return known;
  const { names, conditional } = selection(info);
  names.delete('__typename');
  const out = [...names];
  if (key && !conditional) unconditional.set(key, out);
  return out;
}

/**
 * Names of the fields selected directly under the current field (through fragments too), leaving out those
 * that @skip or @include leave out for this request's variables: the fields that will be resolved.
 */
export function selectedFields(info: GraphQLResolveInfo): Set<string> {
  return selection(info).names;
}

/** The selected names, and whether a directive decided any of them (then they hold for these variables only). */
function selection(info: GraphQLResolveInfo): { names: Set<string>; conditional: boolean } {
  let conditional = false;
  const names = new Set<string>();
  const included = (sel: SelectionNode) => {
    if (!sel.directives?.length) return true;
    conditional = true;
    if (getDirectiveValues(GraphQLSkipDirective, sel, info.variableValues)?.if === true) return false;
    return getDirectiveValues(GraphQLIncludeDirective, sel, info.variableValues)?.if !== false;
  };
  const visit = (set: SelectionSetNode | undefined) => {
    for (const sel of set?.selections ?? []) {
      if (!included(sel)) continue;
      if (sel.kind === 'Field') names.add(sel.name.value);
      else if (sel.kind === 'InlineFragment') visit(sel.selectionSet);
      else visit(info.fragments[sel.name.value]?.selectionSet);
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet);
  return { names, conditional };
}
