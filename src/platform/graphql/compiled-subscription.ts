import { createSourceEventStream, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { CompiledQuery } from 'graphql-jit';

/**
 * A subscription whose events run through a compiled (graphql-jit) document: graphql-js resolves the
 * source stream (the subscribe resolver gets the usual `info`), and each event runs the compiled query.
 * This is what graphql-jit's own `subscribe` does, but a subscriber is one small object with its methods
 * on the prototype: graphql-jit keeps an execution context and six closures per subscriber for as long
 * as it stays subscribed (bench/fanout's heap per subscriber).
 */
export async function subscribeCompiled(query: CompiledQuery, args: ExecutionArgs): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in source)) return source;
  return new CompiledEventStream(source[Symbol.asyncIterator](), query, args.contextValue, args.variableValues ?? undefined);
}

class CompiledEventStream implements AsyncIterableIterator<ExecutionResult> {
  constructor(
    private readonly source: AsyncIterator<unknown>,
    private readonly query: CompiledQuery,
    private readonly context: unknown,
    private readonly variables: ExecutionArgs['variableValues'] | undefined,
  ) {}

  async next(): Promise<IteratorResult<ExecutionResult>> {
    return this.map(await this.source.next());
  }

  async return(): Promise<IteratorResult<ExecutionResult>> {
    return this.source.return ? this.map(await this.source.return()) : { done: true, value: undefined };
  }

  async throw(error?: unknown): Promise<IteratorResult<ExecutionResult>> {
    if (this.source.throw) return this.map(await this.source.throw(error));
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private async map(result: IteratorResult<unknown>): Promise<IteratorResult<ExecutionResult>> {
    if (result.done) return { done: true, value: undefined };
    try {
      return { done: false, value: await this.query.query(result.value, this.context, this.variables ?? undefined) };
    } catch (err) {
      // As graphql-js and graphql-jit do: a failed event ends the source too.
      await this.source.return?.().catch(() => undefined);
      throw err;
    }
  }
}
