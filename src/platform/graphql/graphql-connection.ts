import type { GraphQLResolveInfo, SelectionSetNode } from 'graphql';
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
}

/** Declares `<Name>Connection` and `<Name>Edge` GraphQL types for node type `Node`. */
export function connectionType<T extends object>(Node: ClassType<T>, name: string) {
  @ObjectType(`${name}Edge`, { simpleResolvers: true })
  class Edge {
    @Field(() => String) cursor!: string;
    @Field(() => Node) node!: T;
  }

  // Not simpleResolvers: a LazyConnection's fields are getters that load (and may throw), and graphql-jit
  // reads a field without a resolver inline, outside the error handling a resolver gets.
  @ObjectType(`${name}Connection`)
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

/** Names of the fields selected directly under the current field (through fragments too). */
export function selectedFields(info: GraphQLResolveInfo): Set<string> {
  const names = new Set<string>();
  const visit = (set: SelectionSetNode | undefined) => {
    for (const sel of set?.selections ?? []) {
      if (sel.kind === 'Field') names.add(sel.name.value);
      else if (sel.kind === 'InlineFragment') visit(sel.selectionSet);
      else visit(info.fragments[sel.name.value]?.selectionSet);
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet);
  return names;
}
