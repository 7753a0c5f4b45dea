import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';

export interface GraphQLResult<T> {
  status: number;
  data: T | null | undefined;
  errors: Array<{ message: string; path?: (string | number)[]; extensions?: { code?: string; details?: any } }> | undefined;
  /** SQL statements the server issued for this request (x-sql-statements). */
  sqlStatements: number;
}

/** Typed GraphQL over HTTP: documents come from codegen (test/operations/*.graphql). */
export class GraphQLClient {
  constructor(readonly baseUrl: string) {}

  async request<T, V>(document: TypedDocumentNode<T, V> | string, variables?: V, token?: string): Promise<GraphQLResult<T>> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const query = typeof document === 'string' ? document : print(document);
    const res = await fetch(`${this.baseUrl}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
    const body = (await res.json()) as { data?: T | null; errors?: GraphQLResult<T>['errors'] };
    return { status: res.status, data: body.data, errors: body.errors, sqlStatements: Number(res.headers.get('x-sql-statements') ?? NaN) };
  }

  /** Like `request`, but fails the test on any GraphQL error. */
  async ok<T, V>(document: TypedDocumentNode<T, V> | string, variables?: V, token?: string): Promise<T> {
    const result = await this.request(document, variables, token);
    if (result.errors?.length || !result.data) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors)}`);
    return result.data;
  }
}
