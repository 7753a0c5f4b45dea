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


/** Runs `fn` with a plain pg client on `url` (a test's own database), then disconnects. */
export async function withPg<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** One statement's rows, on a short-lived connection. */
export async function query<R extends Record<string, any> = Record<string, any>>(url: string, sql: string, params: unknown[] = []): Promise<R[]> {
  return withPg(url, async (client) => (await client.query<R>(sql, params)).rows);
}

/** Row count of every table in the public schema (migration bookkeeping excluded): a cheap "nothing was written" probe. */
export async function rowCounts(url: string): Promise<Record<string, number>> {
  return withPg(url, async (client) => {
    const tables = await client.query<{ name: string }>(
      `select table_name as name from information_schema.tables
        where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not like 'mikro_orm%' order by 1`,
    );
    const counts: Record<string, number> = {};
    for (const { name } of tables.rows) counts[name] = Number((await client.query(`select count(*)::int as n from "${name}"`)).rows[0].n);
    return counts;
  });
}


/** Tables every write in the blueprint, lineage and operation areas touches. */
export const writtenTables = ['blueprint', 'star', 'lineage_link', 'blueprint_version', 'tool_operation', 'team', 'team_member'] as const;

/**
 * A direct SQL connection to a test server's database, for arranging what the API cannot (old
 * timestamps, teams) and for checking that a rejected request wrote nothing.
 */
export class SqlClient {
  private constructor(private readonly client: Client) {}

  static async connect(databaseUrl: string): Promise<SqlClient> {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    return new SqlClient(client);
  }

  async query<T extends Record<string, any> = Record<string, any>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.client.query<T>(sql, params)).rows;
  }

  /** Row count of each table plus the blueprint counters, to compare before and after a request. */
  async snapshot(): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const table of writtenTables) out[table] = Number((await this.query(`select count(*) as n from ${table}`))[0]!.n);
    out.counters = await this.query('select id, stars_count, forks_count, updated_at from blueprint order by id');
    return out;
  }

  close(): Promise<void> {
    return this.client.end();
  }
}
