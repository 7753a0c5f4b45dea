import { Client } from 'pg';

export interface SqlPeek {
  /** Rows of one statement (`$1` placeholders). */
  rows<T = Record<string, any>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** `select count(*)` of a table, optionally with a where clause. */
  count(table: string, where?: string, params?: unknown[]): Promise<number>;
  close(): Promise<void>;
}

/**
 * A direct connection to a test server's database, for what the API does not show (rows written, version
 * rows) and for setting up states the API cannot reach quickly (an expired bearer token).
 */
export async function openSql(databaseUrl: string): Promise<SqlPeek> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  return {
    async rows<T>(sql: string, params: unknown[] = []) {
      return (await client.query(sql, params)).rows as T[];
    },
    async count(table: string, where?: string, params: unknown[] = []) {
      const result = await client.query(`select count(*)::int as n from ${table}${where ? ` where ${where}` : ''}`, params);
      return result.rows[0].n as number;
    },
    close: () => client.end(),
  };
}
