import { Kind, getOperationAST, type DocumentNode, type GraphQLSchema, type SelectionSetNode } from 'graphql';
import { Extensions } from 'type-graphql';
import type { Viewer } from '../context';
import { forbidden, unauthenticated } from '../errors';

/**
 * The spec's rule (docs/api.md, Authentication), in one place: "every endpoint requires a bearer token except
 * those stated as public", and a `read` token may not write. REST routes (a hook in http.ts reading each
 * route's `config.public` / `config.write`), GraphQL over HTTP and WebSocket (root fields, below) and MCP
 * (each tool's `readOnly`) all call `assertAllowed`; no route or resolver repeats the check.
 * What a public thing shows (a private architecture is still 404) is the services' business.
 */
export interface AccessRequirement {
  /** Callable without a token. */
  public: boolean;
  /** Changes something: refused to `read` tokens. */
  write: boolean;
}

export function assertAllowed(viewer: Viewer | null, requirement: AccessRequirement): void {
  if (!viewer) {
    if (!requirement.public) throw unauthenticated();
    return;
  }
  if (requirement.write && !requirement.public && viewer.scope === 'read')
    throw forbidden('This token has the read scope; create a write token to change things');
}

/**
 * Marks a GraphQL root field callable without a token (docs/api.md, Authentication): each area declares
 * its own public fields beside their resolvers, and the rule below reads the mark from the schema.
 */
export const Public = (): MethodDecorator => Extensions({ public: true });

/** Whether a root field of the operation type is public: marked `@Public()`, or introspection (documentation). */
export function isPublicRootField(schema: GraphQLSchema, operation: 'query' | 'mutation' | 'subscription', field: string): boolean {
  if (field.startsWith('__')) return true;
  const root = operation === 'query' ? schema.getQueryType() : operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  return root?.getFields()[field]?.extensions?.public === true;
}

type RootFields = { operation: 'query' | 'mutation' | 'subscription'; fields: readonly string[] } | null;

/** Answers kept per parsed document (one per operation name asked for, up to this many). */
const ROOT_FIELDS_PER_DOCUMENT = 8;
const rootFieldsCache = new WeakMap<DocumentNode, Map<string, RootFields>>();

/**
 * The root field names an operation selects (fragments at the root included). Kept per parsed document:
 * Apollo's document store and the WebSocket's document cache hand back the same document for the same
 * text, and the access rule and the deferred token lookup both ask on every request.
 */
export function rootFieldsOf(document: DocumentNode, operationName?: string | null): RootFields {
  const name = operationName ?? '';
  let byName = rootFieldsCache.get(document);
  const known = byName?.get(name);
  if (known !== undefined) return known;
  const answer = walkRootFields(document, operationName);
  if (!byName) rootFieldsCache.set(document, (byName = new Map()));
  if (byName.size < ROOT_FIELDS_PER_DOCUMENT) byName.set(name, answer);
  return answer;
}

function walkRootFields(document: DocumentNode, operationName?: string | null): RootFields {
  const op = getOperationAST(document, operationName ?? undefined);
  if (!op) return null;
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  const fields: string[] = [];
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode) => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) fields.push(sel.name.value);
      else if (sel.kind === Kind.INLINE_FRAGMENT) walk(sel.selectionSet);
      else if (!seen.has(sel.name.value)) {
        seen.add(sel.name.value);
        const fragment = fragments.get(sel.name.value);
        if (fragment) walk(fragment.selectionSet);
      }
    }
  };
  walk(op.selectionSet);
  return Object.freeze({ operation: op.operation, fields: Object.freeze(fields) });
}

/** The rule applied to a GraphQL operation: every root field it selects must be allowed. */
export function assertOperationAllowed(viewer: Viewer | null, schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): void {
  const root = rootFieldsOf(document, operationName);
  if (!root) return; // graphql-js reports the missing operation itself
  for (const field of root.fields) assertAllowed(viewer, { public: isPublicRootField(schema, root.operation, field), write: root.operation === 'mutation' });
}
