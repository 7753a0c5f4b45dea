import { GraphQLError, Kind, execute, getOperationAST, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

/**
 * Documents run compiled (graphql-jit): each distinct document and operation is compiled once, on first
 * use, and every later request or subscriber with the same parsed document runs that function instead of
 * graphql-js interpreting the document again (measured in docs/reads.md: most of the CPU of a large tree
 * was graphql-js visiting fields). The parsed documents come from caches keyed by their text (Apollo's
 * document store over HTTP, the subscription document cache over WebSocket), so the compiled functions
 * are keyed by the document object and go when it does.
 *
 * What does not compile runs on graphql-js, which answers it exactly as before: an operation name the
 * document does not hold (graphql-js's error), a document graphql-jit refuses, a subscription whose root
 * field is aliased (graphql-jit's subscribe looks the root field up by its alias), and a document that
 * no cache keeps (`interpretOnly`).
 */
export class CompiledDocuments {
  private readonly compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();
  private readonly interpreted = new WeakSet<DocumentNode>();

  constructor(private readonly schema: GraphQLSchema) {}

  /**
   * Marks a document that no cache keeps (parsed for one message only): it runs on graphql-js. Compiling
   * costs more than interpreting once, and pays only for a document that runs again, so a client sending
   * ever-new large documents must not make the server compile each of them.
   */
  interpretOnly(document: DocumentNode): void {
    this.interpreted.add(document);
  }

  /** The compiled operation, or null when this one runs on graphql-js. */
  compiledFor(document: DocumentNode, operationName: string | null | undefined): CompiledQuery | null {
    if (this.interpreted.has(document)) return null;
    let byOperation = this.compiled.get(document);
    const key = operationName ?? '';
    const known = byOperation?.get(key);
    if (known !== undefined) return known;
    const operation = getOperationAST(document, operationName);
    // Not cached: the name is the caller's, and a map keyed by made-up names would only grow.
    if (!operation) return null;
    let result: CompiledQuery | null = null;
    const aliasedRoot = operation.operation === 'subscription' && operation.selectionSet.selections.some((s) => s.kind === Kind.FIELD && s.alias);
    if (!aliasedRoot) {
      try {
        const compiled = compileQuery(this.schema, document, operationName ?? undefined);
        result = isCompiledQuery(compiled) ? compiled : null;
      } catch {
        result = null;
      }
    }
    if (!byOperation) this.compiled.set(document, (byOperation = new Map()));
    byOperation.set(key, result);
    return result;
  }

  /** Executes a query or mutation: compiled when it compiles, else graphql-js. */
  execute(args: ExecutionArgs): ExecutionResult | Promise<ExecutionResult> {
    const query = this.compiledFor(args.document, args.operationName);
    if (!query) return execute(args);
    const result = query.query(args.rootValue, args.contextValue, args.variableValues ?? {}) as ExecutionResult | Promise<ExecutionResult>;
    return isPromise(result) ? result.then(withGraphQLErrors) : withGraphQLErrors(result);
  }
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown }).then === 'function';
}

/**
 * graphql-jit reports errors as its own GraphQLError look-alike, without `extensions` when the thrown
 * error had none (Apollo's error formatting reads `extensions.code`). Each becomes graphql-js's
 * GraphQLError with the same message, locations, path and original error.
 */
function withGraphQLErrors(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.some((e) => !(e.extensions as unknown))) return result;
  const errors = result.errors.map((e) => {
    if (e.extensions as unknown) return e;
    const error = new GraphQLError(e.message, { path: e.path, originalError: e.originalError });
    (error as { locations?: GraphQLError['locations'] }).locations = e.locations;
    return error;
  });
  return { ...result, errors };
}
