import { MikroORM, defineConfig } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { Client } from 'pg';
import type { MigrationObject } from '@mikro-orm/core';
import { CountingLogger } from './sql-counter';

export type Orm = MikroORM;

/** What the database holds: the entity classes and the committed migrations, from the domain areas. */
export interface DatabaseSchema {
  entities: Array<Function>;
  migrations: MigrationObject[];
}

export interface DatabaseOptions {
  debug?: boolean;
  poolMax?: number;
}

export function ormConfig(databaseUrl: string, schema: DatabaseSchema, options: DatabaseOptions = {}) {
  const { entities, migrations } = schema;
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList: migrations, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    debug: options.debug ?? false,
    loggerFactory: (o) => CountingLogger.create(o),
    pool: { min: 0, max: options.poolMax ?? 10 },
    // Reads by id inside one request hit the identity map; nothing is loaded lazily behind our back.
    forceUndefined: false,
    allowGlobalContext: false,
    discovery: { warnWhenNoEntities: true },
  });
}

/** The same server URL with another database name. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Runs one statement on the server's `postgres` database (create or drop a database). */
export async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates the database named in the URL when the server has no such database yet. */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, '')) || 'postgres';
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`create database "${name.replace(/"/g, '""')}"`);
  } catch (err) {
    // Two processes starting at once may both try; the loser sees 42P04 (duplicate database).
    if ((err as { code?: string }).code !== '42P04') throw err;
  } finally {
    await client.end();
  }
}

/** Connects and applies every pending migration. */
export async function openDatabase(databaseUrl: string, schema: DatabaseSchema, options: DatabaseOptions = {}): Promise<Orm> {
  await ensureDatabase(databaseUrl);
  const orm = await MikroORM.init(ormConfig(databaseUrl, schema, options));
  await orm.getMigrator().up();
  return orm;
}
