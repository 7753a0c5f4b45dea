import { Client } from 'pg';

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
