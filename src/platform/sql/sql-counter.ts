// First, before MikroORM loads (see the module): a bench or test may import this module first.
import './orm-contexts';
import { AsyncLocalStorage } from 'node:async_hooks';
import { DefaultLogger, type LogContext, type LoggerOptions } from '@mikro-orm/core';

/**
 * Counts the SQL statements one request issues, so tests can assert that nested GraphQL reads batch
 * (the count must not grow with breadth) and benchmarks can print it.
 */
export interface SqlCount {
  statements: number;
}

export const sqlCountScope = new AsyncLocalStorage<SqlCount>();

/**
 * Called with every statement counted in a request scope: its text (with `?` placeholders) and parameters.
 * Tests check what SQL a read sends; benchmarks EXPLAIN it.
 */
export const sqlListeners = new Set<(sql: string, params: readonly unknown[]) => void>();

/** Counts one statement in the current request scope (if any) and tells the listeners. */
export function countStatement(query: string, params: readonly unknown[] | undefined): void {
  const scope = sqlCountScope.getStore();
  if (!scope) return;
  scope.statements += 1;
  for (const listener of sqlListeners) listener(query, params ?? []);
}

/** MikroORM logger that counts every statement in the current request scope, then logs as usual. */
export class CountingLogger extends DefaultLogger {
  override logQuery(context: { query: string; params?: readonly unknown[] } & LogContext): void {
    countStatement(context.query, context.params);
    super.logQuery(context);
  }

  static override create(options: LoggerOptions): CountingLogger {
    return new CountingLogger(options);
  }
}
