import { Client } from 'pg';

/**
 * A test's connection may be cut by the server it inspects (a shutdown test stops PostgreSQL while the
 * test is closing it). Queries still reject on errors; an idle connection's error must not crash jest.
 */
function idleSafe(client: Client): Client {
  client.on('error', () => undefined);
  return client;
}

/** Tables every write in the blueprint, lineage and operation areas touches. */
export const writtenTables = ['blueprint', 'star', 'lineage_link', 'blueprint_version', 'tool_operation', 'team', 'team_member'] as const;

/**
 * A direct SQL connection to a test server's database, for what the API does not show (rows written,
 * version rows), for arranging what the API cannot reach quickly (old timestamps, teams, an expired
 * token) and for checking that a rejected request wrote nothing.
 */
export class SqlClient {
  private constructor(private readonly client: Client) {}

  static async connect(databaseUrl: string): Promise<SqlClient> {
    const client = idleSafe(new Client({ connectionString: databaseUrl }));
    await client.connect();
    return new SqlClient(client);
  }

  /** Rows of one statement (`$1` placeholders). */
  async query<T extends Record<string, any> = Record<string, any>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.client.query<T>(sql, params)).rows;
  }

  /** Same as `query`. */
  rows<T extends Record<string, any> = Record<string, any>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.query<T>(sql, params);
  }

  /** `select count(*)` of a table, optionally with a where clause. */
  async count(table: string, where?: string, params: unknown[] = []): Promise<number> {
    const rows = await this.query<{ n: number }>(`select count(*)::int as n from ${table}${where ? ` where ${where}` : ''}`, params);
    return rows[0]!.n;
  }

  /** Row count of each written table plus the blueprint counters, to compare before and after a request. */
  async snapshot(): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const table of writtenTables) out[table] = await this.count(table);
    out.counters = await this.query('select id, stars_count, forks_count, updated_at from blueprint order by id');
    return out;
  }

  /** Row count of every table in the public schema (migration bookkeeping excluded). */
  async rowCounts(): Promise<Record<string, number>> {
    const tables = await this.query<{ name: string }>(
      `select table_name as name from information_schema.tables
        where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not like 'mikro_orm%' order by 1`,
    );
    const counts: Record<string, number> = {};
    for (const { name } of tables) counts[name] = await this.count(`"${name}"`);
    return counts;
  }

  close(): Promise<void> {
    return this.client.end();
  }
}

export type SqlPeek = SqlClient;

export function openSql(databaseUrl: string): Promise<SqlClient> {
  return SqlClient.connect(databaseUrl);
}

/** Runs `fn` with a plain pg client on `url` (a test's own database), then disconnects. */
export async function withPg<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = idleSafe(new Client({ connectionString: url }));
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function once<T>(url: string, fn: (sql: SqlClient) => Promise<T>): Promise<T> {
  const sql = await SqlClient.connect(url);
  try {
    return await fn(sql);
  } finally {
    await sql.close();
  }
}

/** One statement's rows, on a short-lived connection. */
export function query<R extends Record<string, any> = Record<string, any>>(url: string, sql: string, params: unknown[] = []): Promise<R[]> {
  return once(url, (c) => c.query<R>(sql, params));
}

/** Row count of every table, on a short-lived connection: a cheap "nothing was written" probe. */
export function rowCounts(url: string): Promise<Record<string, number>> {
  return once(url, (c) => c.rowCounts());
}
