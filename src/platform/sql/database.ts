// First, before MikroORM loads (see the module).
import { idleContextsInstalled } from './orm-contexts';
import { TransactionContext } from '@mikro-orm/core';
import { MikroORM, defineConfig, type EntityManager } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { Client } from 'pg';
import type { MigrationObject } from '@mikro-orm/core';
import { defaultDatabaseSettings, type DatabaseSettings } from '../config';
import { countStatement, CountingLogger } from './sql-counter';

export type Orm = MikroORM;

/** What the database holds: the entity classes and the committed migrations, from the domain areas. */
export interface DatabaseSchema {
  entities: Array<Function>;
  migrations: MigrationObject[];
}

export interface DatabaseOptions {
  debug?: boolean;
  poolMax?: number;
  settings?: DatabaseSettings;
  /** Where the starvation guard reports a second connection taken inside a transaction. */
  warn?: (message: string) => void;
}

function knexLog(warn: (message: string) => void) {
  const say = (message: unknown) => warn(`database: ${message instanceof Error ? message.message : String(message)}`);
  return { warn: say, error: say, deprecate: say, debug: () => undefined };
}

export function ormConfig(databaseUrl: string, schema: DatabaseSchema, options: DatabaseOptions = {}) {
  const { entities, migrations } = schema;
  const settings = options.settings ?? defaultDatabaseSettings;
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList: migrations, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    debug: options.debug ?? false,
    loggerFactory: (o) => CountingLogger.create(o),
    pool: { min: 0, max: options.poolMax ?? settings.poolMax },
    driverOptions: {
      // A request that cannot get a connection in time is answered 503 UNAVAILABLE, never left hanging.
      acquireConnectionTimeout: settings.acquireTimeoutMs,
      // knex reports dropped connections on console.log by default; send them where the server logs.
      log: knexLog(options.warn ?? ((m) => console.warn(m))),
      // Set by PostgreSQL on each pooled connection at connect time (pg passes them as startup options).
      // Not behind a transaction pooler: PgBouncer refuses unknown startup parameters (set them on the role there).
      connection: {
        ...(settings.transactionPooling ? {} : { statement_timeout: settings.statementTimeoutMs, lock_timeout: settings.lockTimeoutMs }),
        connectionTimeoutMillis: Math.min(settings.acquireTimeoutMs, 5_000),
        keepAlive: true,
      },
    },
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
    // Two processes starting at once may both try; the loser sees 42P04 (duplicate database), or 23505 when
    // both passed the existence check at the same moment (the catalog's unique index refuses the second).
    const code = (err as { code?: string }).code;
    if (code !== '42P04' && code !== '23505') throw err;
  } finally {
    await client.end();
  }
}

/**
 * The EntityManager of one request (or WebSocket operation). It resolves the transaction context: inside
 * `em.transactional(cb)`, every call on it, including reads through loaders and helpers that only hold
 * the request context, runs on the transaction's connection. A request therefore never holds a
 * transaction's connection while waiting for a second one from the pool (pool starvation: every connection held by a transaction waiting for another).
 */
export function requestEntityManager(orm: Orm): EntityManager {
  return orm.em.fork({ useContext: true }) as EntityManager;
}

export const STARVATION_MESSAGE =
  'A second pooled connection was requested while this request holds an open transaction; read through the transaction (ctx.em inside ctx.em.transactional), see docs/reliability.md';

/**
 * The guard that finds the next starvation bug: every connection taken from the pool while the same
 * async flow has a transaction open is reported (and refused when `strictTransactions` is on, as in
 * tests). Savepoints and queries of the transaction itself use its own connection and never get here.
 */
function guardNestedAcquire(orm: Orm, settings: DatabaseSettings, warn: (message: string) => void): void {
  const client = (orm.em.getConnection().getKnex() as unknown as { client: { acquireConnection(): Promise<unknown> } }).client;
  const acquire = client.acquireConnection.bind(client);
  client.acquireConnection = () => {
    const tx = TransactionContext.getEntityManager(orm.em.name)?.getTransactionContext<{ isCompleted?(): boolean }>();
    if (tx && !tx.isCompleted?.()) {
      const error = new Error(STARVATION_MESSAGE);
      warn(`${STARVATION_MESSAGE}\n${error.stack ?? ''}`);
      if (settings.strictTransactions) return Promise.reject(error);
    }
    return acquire();
  };
}

/** The advisory lock instances take around applying migrations. */
const MIGRATION_LOCK = 7342027;

/**
 * Runs `migrate` while holding a transaction-level advisory lock on a connection of its own: instances
 * started together on a fresh database take turns (the first applies the migrations, the others then find
 * none pending) instead of racing to create the same tables. Transaction-level, so it also works through
 * PgBouncer in transaction pooling.
 */
async function withMigrationLock<T>(databaseUrl: string, migrate: () => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    return await migrate();
  } finally {
    await client.query('commit').catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}

/** Connects and applies every pending migration. */
export async function openDatabase(databaseUrl: string, schema: DatabaseSchema, options: DatabaseOptions = {}): Promise<Orm> {
  await ensureDatabase(databaseUrl);
  // Behind a pooler in transaction mode a named statement prepared on one server connection is unknown on
  // the next: prepared statements are sent unnamed there (PgBouncer 1.18 does not track them).
  namedStatements = !(options.settings ?? defaultDatabaseSettings).transactionPooling;
  const orm = await MikroORM.init(ormConfig(databaseUrl, schema, options));
  await withMigrationLock(databaseUrl, () => orm.getMigrator().up());
  const warn = options.warn ?? ((m: string) => console.warn(m));
  guardNestedAcquire(orm, options.settings ?? defaultDatabaseSettings, warn);
  if (!idleContextsInstalled())
    warn('MikroORM was loaded before src/platform/sql/orm-contexts.ts: promise hooks stay on after the first transaction (slower, not wrong)');
  return orm;
}

/** A pooled `pg` client, as knex's pool hands it out. */
interface PooledClient {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/** A knex pool (the starvation guard wraps `acquireConnection`), or a knex transaction's client. */
interface PreparingPool {
  acquireConnection(): Promise<PooledClient>;
  releaseConnection(client: PooledClient): Promise<void>;
}

/**
 * What `executePrepared` uses of MikroORM's connection: its knex pool and `executeQuery`, which logs and
 * counts the statement.
 */
interface PreparingConnection {
  ensureConnection(): Promise<void>;
  getKnex(): { client: PreparingPool };
  executeQuery<T>(query: string, cb: () => Promise<T>, context?: Record<string, unknown>): Promise<T>;
}

/** False behind a transaction pooler (`DatabaseSettings.transactionPooling`): `executePrepared` sends unnamed statements. */
let namedStatements = true;

/** Each prepared statement's text with `$n` placeholders, by name (a name always stands for one text). */
const positionalTexts = new Map<string, string>();
/** Every text `executePrepared` has run (`isPreparedText`). */
const preparedTexts = new Set<string>();

/** `?` placeholders as PostgreSQL's `$1`, `$2`...: what knex does to a raw statement on every call. */
export function positional(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** An SQL text with `?` placeholders and their values, in order. */
export interface SqlFragment {
  sql: string;
  params: unknown[];
}

/** At most this many distinct statement texts are prepared by `executeShaped` in one process. */
export const SHAPED_STATEMENTS_MAX = 100;
const shapedNames = new Map<string, string>();

/**
 * Runs a generated read statement whose text depends only on the shape of what was asked (the columns and
 * nesting a GraphQL selection needs; every value is a parameter) as a named prepared statement, so that
 * each pooled connection plans it once. A nested fork tree took about 1 ms to plan and 0.3 ms to run.
 * The names are bounded: the first `SHAPED_STATEMENTS_MAX` distinct texts of the process are prepared, and
 * any later text is planned on each call as before (a client inventing shapes costs itself planning time,
 * not the database memory). A name always stands for the same text, so no connection ever sees one name
 * with two texts. Inside a transaction it runs on the transaction, unprepared, like `em.execute`.
 */
export async function executeShaped<T>(em: EntityManager, statement: SqlFragment): Promise<T[]> {
  if (em.getTransactionContext()) return em.execute(statement.sql, statement.params);
  let name = shapedNames.get(statement.sql);
  if (name === undefined && shapedNames.size < SHAPED_STATEMENTS_MAX) shapedNames.set(statement.sql, (name = `shaped_${shapedNames.size + 1}`));
  return name === undefined ? em.execute(statement.sql, statement.params) : executePrepared<T>(em, name, statement.sql, statement.params);
}

/**
 * Whether this process sends `sql` (with `?` placeholders) as a named prepared statement (`executePrepared`,
 * and so `executeShaped` within its bound). For benchmarks' floors, which send each statement the way the
 * server does.
 */
export function isPreparedText(sql: string): boolean {
  return namedStatements && preparedTexts.has(sql);
}

/** How a read statement is sent: prepared by shape (`executeShaped`) or as text (`asText`). */
export type StatementRunner = <T>(em: EntityManager, statement: SqlFragment) => Promise<T[]>;

/**
 * A statement sent as text, planned on each call: for a filter with values, whose plan should see their
 * selectivity (a generic plan of a prepared statement would not).
 */
export const asText: StatementRunner = (em, statement) => em.execute(statement.sql, statement.params);

/** How many statement texts `executeShaped` has prepared in this process (for tests). */
export function shapedStatementCount(): number {
  return shapedNames.size;
}

/**
 * Runs one of a few fixed, hot statements as a named prepared statement: each pooled connection parses
 * and plans it once instead of on every call (MikroORM sends every statement as text, so PostgreSQL plans
 * each one anew; for the token lookup behind every authenticated request, planning cost more than
 * running). Only for statements whose text never varies: every name stays prepared on every pooled
 * connection for the connection's life. On `em`'s transaction when it has one (its connection), else on
 * a pooled connection, like `em.execute`.
 */
export async function executePrepared<T>(em: EntityManager, name: string, sql: string, params: unknown[]): Promise<T[]> {
  const connection = em.getConnection() as unknown as PreparingConnection;
  await connection.ensureConnection();
  // A knex transaction's client hands out the transaction's own connection (and releasing it is a no-op).
  const transaction = em.getTransactionContext<{ client: PreparingPool; isCompleted(): boolean }>();
  if (transaction?.isCompleted()) throw new Error(`executePrepared(${name}) on a finished transaction`);
  let text = positionalTexts.get(name);
  if (text === undefined) {
    positionalTexts.set(name, (text = positional(sql)));
    preparedTexts.add(sql);
  }
  const statement = namedStatements ? { name, text, values: params } : { text, values: params };
  // Straight to a pooled client: knex's raw builder re-parsed the placeholders and built a runner on every
  // call (knex and lodash: about 40 µs of a breadth-5 fork tree read's 1.1 ms of server CPU, profiled).
  const send = async () => {
    const pool = transaction ? transaction.client : connection.getKnex().client;
    const client = await pool.acquireConnection();
    try {
      return (await client.query(statement)).rows as T[];
    } finally {
      await pool.releaseConnection(client);
    }
  };
  // MikroORM's `executeQuery` times the statement and builds its log entry (about 10 µs of the one-blueprint
  // read, profiled) for a logger that drops it unless query logging is on; then only the count is kept.
  if (!em.config.getLogger().isEnabled('query')) {
    countStatement(sql, params);
    return send();
  }
  return connection.executeQuery(sql, send, { query: sql, params });
}
