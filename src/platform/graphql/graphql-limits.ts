import {
  GraphQLError,
  Kind,
  getNamedType,
  getOperationAST,
  getVariableValues,
  isInterfaceType,
  isObjectType,
  parse,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
  type ValueNode,
} from 'graphql';
import type { Limits } from '../config';
import { validationFailed } from '../errors';
import { stringLiteralGate } from '../http/input-gate';

/**
 * GraphQL defences that cost nothing before they refuse. Every check here is linear in the size of the
 * document, whatever its shape: the parser stops at `queryTokensMax` tokens, fragment cycles are found
 * before anything follows a spread, and depth and node counts expand each fragment once (memoized), so a
 * fragment fan-out (`F0 { ...F1 ...F1 } F1 { ...F2 ...F2 } ...`) costs its length, not 2^depth.
 * The same functions serve HTTP (Apollo) and WebSocket (graphql-ws). See docs/limits.md.
 */

const refuse = (message: string, details?: Record<string, unknown>) =>
  new GraphQLError(message, { extensions: { code: 'VALIDATION_FAILED', ...(details ? { details } : {}) } });

/** Parses with the token limit (graphql-js stops counting, and parsing, at `maxTokens`). */
export function parseLimited(query: string, limits: Limits): DocumentNode {
  return parse(query, { maxTokens: limits.queryTokensMax, noLocation: false });
}

/** The fragment each fragment spreads, straight from the AST (no expansion). */
function spreadsByFragment(document: DocumentNode): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const def of document.definitions) {
    if (def.kind !== Kind.FRAGMENT_DEFINITION) continue;
    const names: string[] = [];
    const stack: SelectionSetNode[] = [def.selectionSet];
    while (stack.length > 0) {
      for (const sel of stack.pop()!.selections) {
        if (sel.kind === Kind.FRAGMENT_SPREAD) names.push(sel.name.value);
        else if (sel.selectionSet) stack.push(sel.selectionSet);
      }
    }
    out.set(def.name.value, names);
  }
  return out;
}

/** The name of a fragment that spreads itself (directly or through others), or null. Iterative. */
export function fragmentCycle(document: DocumentNode): string | null {
  const graph = spreadsByFragment(document);
  const state = new Map<string, 'open' | 'done'>();
  for (const start of graph.keys()) {
    if (state.has(start)) continue;
    const stack: Array<{ name: string; next: number }> = [{ name: start, next: 0 }];
    state.set(start, 'open');
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const targets = graph.get(top.name) ?? [];
      if (top.next >= targets.length) {
        state.set(top.name, 'done');
        stack.pop();
        continue;
      }
      const target = targets[top.next++]!;
      if (!graph.has(target)) continue; // unknown fragment: the specified rules report it
      const seen = state.get(target);
      if (seen === 'open') return target;
      if (seen === undefined) {
        state.set(target, 'open');
        stack.push({ name: target, next: 0 });
      }
    }
  }
  return null;
}

/** Directives anywhere in the document (each written once; spreads do not multiply them). */
function directiveCount(document: DocumentNode): number {
  let count = 0;
  const stack: Array<{ directives?: readonly unknown[]; selectionSet?: SelectionSetNode }> = [...document.definitions];
  while (stack.length > 0) {
    const node = stack.pop()!;
    count += node.directives?.length ?? 0;
    if (node.selectionSet) stack.push(...node.selectionSet.selections);
  }
  return count;
}

interface Measure {
  /** Fields below this selection set on the deepest path (a leaf field is 0). */
  depth: number;
  /** Worst-case nodes: per paged field, its page size times (1 + the nodes below it), summed. */
  nodes: number;
}

/** The page size a field asks for: `first`, `last` or `limit`, else the field's default, else the page default. */
function pageSize(field: FieldNode, def: GraphQLField<unknown, unknown> | undefined, variables: Record<string, unknown>, limits: Limits): number | null {
  const pagedArg = def?.args.find((a) => a.name === 'first' || a.name === 'last' || a.name === 'limit');
  const given = field.arguments?.find((a) => a.name.value === 'first' || a.name.value === 'last' || a.name.value === 'limit');
  if (!pagedArg && !given) return null;
  const value = given ? intValue(given.value, variables) : null;
  if (value !== null) return Math.max(0, value);
  return typeof pagedArg?.defaultValue === 'number' ? pagedArg.defaultValue : limits.pageDefault;
}

function intValue(node: ValueNode, variables: Record<string, unknown>): number | null {
  if (node.kind === Kind.INT) return Number(node.value);
  if (node.kind === Kind.VARIABLE) {
    const v = variables[node.name.value];
    return typeof v === 'number' ? v : null;
  }
  return null;
}

/**
 * Depth and worst-case node count of an operation, each fragment measured once. The document must be free
 * of fragment cycles (check `fragmentCycle` first). Recursion follows the selection nesting only, which the
 * token limit bounds.
 */
export function measureOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
  limits: Limits,
): Measure {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const memo = new Map<string, Measure>();

  const measure = (set: SelectionSetNode, parent: GraphQLNamedType | undefined): Measure => {
    let depth = 0;
    let nodes = 0;
    for (const sel of set.selections) {
      let m: Measure;
      if (sel.kind === Kind.FIELD) {
        const def = parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[sel.name.value] : undefined;
        const below = sel.selectionSet ? measure(sel.selectionSet, def ? getNamedType(def.type) : undefined) : { depth: -1, nodes: 0 };
        const size = pageSize(sel, def, variables, limits);
        m = { depth: below.depth + 1, nodes: size === null ? below.nodes : size + size * below.nodes };
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const type = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : parent;
        m = measure(sel.selectionSet, type ?? undefined);
      } else {
        const name = sel.name.value;
        const cached = memo.get(name);
        if (cached) m = cached;
        else {
          const fragment = fragments.get(name);
          m = fragment ? measure(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value) ?? undefined) : { depth: 0, nodes: 0 };
          memo.set(name, m);
        }
      }
      depth = Math.max(depth, m.depth);
      nodes += m.nodes;
    }
    return { depth, nodes };
  };
  const root =
    operation.operation === 'query' ? schema.getQueryType() : operation.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  return measure(operation.selectionSet, root ?? undefined);
}

/** At most `max` aliases in one document (alias batching multiplies work behind one request). */
function aliasLimit(max: number): ValidationRule {
  return (context: ValidationContext) => {
    let count = 0;
    return {
      Field(node) {
        if (node.alias && ++count === max + 1)
          context.reportError(new GraphQLError(`The query uses more than ${max} aliases`, { nodes: [node], extensions: { code: 'VALIDATION_FAILED' } }));
      },
    };
  };
}

/**
 * The structural limits, as one validation rule that runs once per document (at its root): fragment
 * cycles (reported by graphql-js's own NoFragmentCycles; measuring is skipped), directives, and the depth
 * of every operation with fragments expanded once. Page sizes come from variables, so the node limit is
 * applied after validation (`assertNodeLimit`).
 */
function structureLimit(limits: Limits): ValidationRule {
  return (context: ValidationContext) => ({
    Document(document) {
      if (fragmentCycle(document) !== null) return;
      const directives = directiveCount(document);
      if (directives > limits.queryDirectivesMax) {
        context.reportError(refuse(`The query uses ${directives} directives; at most ${limits.queryDirectivesMax} are allowed`));
        return;
      }
      for (const def of document.definitions) {
        if (def.kind !== Kind.OPERATION_DEFINITION) continue;
        const { depth } = measureOperation(context.getSchema(), document, def, {}, limits);
        if (depth > limits.queryDepthMax)
          context.reportError(
            new GraphQLError(`The query is ${depth} levels deep; at most ${limits.queryDepthMax} are allowed (query depth limit)`, {
              nodes: [def],
              extensions: { code: 'VALIDATION_FAILED' },
            }),
          );
      }
    },
  });
}

/** Depth, directive, cycle and alias limits, and the input gate for string literals: validation rules, applied to HTTP and WebSocket operations alike. */
export function limitRules(limits: Limits): ValidationRule[] {
  return [structureLimit(limits), aliasLimit(limits.queryAliasMax), stringLiteralGate()];
}

/**
 * Throws VALIDATION_FAILED when the operation could return more than `queryNodeMax` nodes (GitHub's rule:
 * the product of the page sizes down each path, summed), or when its variables do not fit their declared
 * types (the count depends on them). An operation name that matches nothing is left for the executor.
 */
export function assertNodeLimit(
  limits: Limits,
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined | null,
  operationName: string | undefined | null,
): number {
  const operation = getOperationAST(document, operationName ?? undefined);
  if (!operation) return 0;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {}, { maxErrors: 5 });
  if (coerced.errors) throw validationFailed(coerced.errors[0]!.message);
  const { nodes } = measureOperation(schema, document, operation, coerced.coerced, limits);
  if (nodes > limits.queryNodeMax)
    throw validationFailed(
      `The query could return up to ${nodes} nodes; at most ${limits.queryNodeMax} are allowed, with pages of at most ${limits.pageMax} (first/limit). Ask for smaller pages or fewer nested lists.`,
      { nodes, max_nodes: limits.queryNodeMax, max_page_size: limits.pageMax },
    );
  return nodes;
}
