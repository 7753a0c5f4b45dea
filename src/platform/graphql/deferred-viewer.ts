import type { DocumentNode, GraphQLSchema } from 'graphql';
import { Extensions } from 'type-graphql';
import { rootFieldsOf } from './access-policy';
import { sqlEm, type RequestContext, type Viewer } from '../context';
import { executeShaped, type SqlFragment, type StatementRunner } from '../sql/database';
import { TOKEN_REFUSED, unauthenticated } from '../errors';

/**
 * The token lookup, carried by a request's first read (docs/reads.md, "The token lookup in the read").
 *
 * An authenticated GraphQL query used to make two round trips to PostgreSQL before it could answer: the
 * token lookup, then the read. For a query whose root fields read the viewer only after their first
 * statement (`@ViewerAfterRead()`), the lookup now rides in that statement as two CTEs, and the viewer is
 * set on the context from the same rows. Nothing is cached: every request still reads the token in the
 * database, and no answer leaves before its token was found live (a revoked token is 401 at once).
 */

/** The auth area's token lookup, as SQL the platform can put in front of a read (AppDeps.viewerLookup). */
export interface ViewerLookup {
  /** CTEs defining `hit` (the live token's row, one `?`: the token's SHA-256); reads only, so any statement may carry them. */
  ctes: string;
  /** An SQL expression over `hit`: the viewer as one JSON value, null when the token is not live. */
  json: string;
  /**
   * The viewer from that JSON value (null: unknown, expired or revoked), and what the lookup's owner still
   * writes for it (e.g. a last-used stamp), or null: awaited before the read's rows are handed back.
   */
  fromJson(ctx: RequestContext, value: unknown): { viewer: Viewer | null; after: Promise<void> | null };
}

/**
 * Marks a Query root field whose resolver reads `ctx.viewer` only after its first `readWithViewerCheck`
 * (its own fields resolve after it, so they see the viewer too). An operation whose root fields are all
 * marked is answered with the token lookup in its first statement.
 */
export const ViewerAfterRead = (): MethodDecorator => Extensions({ viewerAfterRead: true });

/** Whether the operation is a query whose root fields all carry `@ViewerAfterRead()` (or are `__typename`). */
export function viewerAfterRead(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): boolean {
  const root = rootFieldsOf(document, operationName);
  if (!root || root.operation !== 'query' || root.fields.length === 0) return false;
  const fields = schema.getQueryType()?.getFields();
  return root.fields.every((f) => f === '__typename' || fields?.[f]?.extensions?.viewerAfterRead === true);
}

/**
 * A bearer token presented with a request whose viewer is not known yet. `settled()` answers the viewer (null:
 * the token is not live), from the statement that carried the lookup or, when none did, from a lookup of its
 * own; it sets `viewer` on the attached contexts before anything awaiting it goes on.
 */
export class PendingViewer {
  private state: 'open' | 'carried' | 'done' = 'open';
  private viewer: Viewer | null = null;
  private wake: (() => void) | null = null;
  private changed: Promise<void> | null = null;
  private own: Promise<void> | null = null;
  private readonly contexts: Array<{ viewer: Viewer | null }> = [];

  constructor(
    readonly tokenHash: string,
    /** The lookup as CTEs, for the statement that carries it. */
    readonly sql: ViewerLookup,
    /** The lookup on its own statement: the viewer, null for a token that is not live; throws on outage. */
    private readonly lookup: () => Promise<Viewer | null>,
    private readonly onSettled: (viewer: Viewer | null) => void,
  ) {}

  /**
   * A context object whose `viewer` is set when the lookup settles. Apollo hands its plugins and resolvers a
   * shallow copy of the context it was given, so the copy is attached too (by the access plugin, before
   * anything executes).
   */
  attach(context: { viewer: Viewer | null }): void {
    if (this.state === 'done') context.viewer = this.viewer;
    else if (!this.contexts.includes(context)) this.contexts.push(context);
  }

  /** True while nothing has looked the token up yet. */
  get open(): boolean {
    return this.state === 'open';
  }

  /** A statement is about to carry the lookup (only the first one asks). */
  carry(): boolean {
    if (this.state !== 'open') return false;
    this.state = 'carried';
    return true;
  }

  /** The carrying statement answered. */
  settle(viewer: Viewer | null): void {
    if (this.state === 'done') return;
    this.state = 'done';
    this.viewer = viewer;
    for (const context of this.contexts) context.viewer = viewer;
    this.contexts.length = 0;
    this.onSettled(viewer);
    this.notify();
  }

  /** The carrying statement failed: whoever waits looks the token up on its own. */
  release(): void {
    if (this.state === 'carried') this.state = 'open';
    this.notify();
  }

  async settled(): Promise<Viewer | null> {
    while (this.state !== 'done') {
      if (this.state === 'carried') await (this.changed ??= new Promise<void>((resolve) => (this.wake = resolve)));
      else
        await (this.own ??= this.lookup().then(
          (viewer) => this.settle(viewer),
          (err: unknown) => {
            this.own = null;
            throw err;
          },
        ));
    }
    return this.viewer;
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    this.changed = null;
    wake?.();
  }
}

/** Column names the wrapper adds to a carried read's rows (removed before the rows are handed back). */
const VIEWER_COLUMN = 'bw_viewer__';
const ORDER_COLUMN = 'bw_n__';

/** Carried texts kept per lookup and form (as many as `executeShaped` names, and a few more for texts sent unprepared). */
const CARRIED_TEXTS_MAX = 200;
const carriedTexts = new WeakMap<ViewerLookup, Map<string, string>>();
const oneRowTexts = new WeakMap<ViewerLookup, Map<string, string>>();

/** A read statement, and whether it answers at most one row (a unique key): see `readWithViewerCheck`. */
export interface CarriedRead extends SqlFragment {
  atMostOneRow?: boolean;
}

/**
 * `sql` with the token lookup in front of it, kept per read text and form, so the same read sends the same
 * string object every time (built and hashed once, not on every request). Two forms:
 *
 * - a read of any number of rows: its rows, numbered in their own order, left-joined to one row, so that a
 *   read of nothing still answers the viewer; the viewer rides in the first row only (each row's JSON
 *   value is parsed by the driver: a page of 20 parsed it 20 times);
 * - a read of at most one row: the viewer is that row's last column, with no join, numbering or sort
 *   (about 15 µs less PostgreSQL CPU per statement, measured with pgbench; docs/reads.md). A read of
 *   nothing then answers no viewer, and the token is looked up on its own.
 */
function carriedText(lookup: ViewerLookup, sql: string, oneRow: boolean): string {
  const cache = oneRow ? oneRowTexts : carriedTexts;
  let texts = cache.get(lookup);
  let text = texts?.get(sql);
  if (text !== undefined) return text;
  text = oneRow
    ? `with ${lookup.ctes} select bw_q.*, ${lookup.json} as ${VIEWER_COLUMN} from (${sql}) bw_q`
    : `with ${lookup.ctes}, bw_read as (select bw_q.*, row_number() over () as ${ORDER_COLUMN} from (${sql}) bw_q)
select bw_r.*, case when coalesce(bw_r.${ORDER_COLUMN}, 1) = 1 then ${lookup.json} end as ${VIEWER_COLUMN}
  from (values (1)) bw_one (x) left join bw_read bw_r on true order by bw_r.${ORDER_COLUMN}`;
  if (!texts) cache.set(lookup, (texts = new Map()));
  if (texts.size < CARRIED_TEXTS_MAX) texts.set(sql, text);
  return text;
}

/**
 * One read statement for `ctx`, sent by `run` (prepared by shape unless told). When the request's token is
 * still pending, the token lookup rides in front of it as CTEs, and the viewer is set from the answer; the
 * read's rows are handed back in their order. Otherwise the read runs alone, and (if another statement of
 * the request is carrying the lookup) returns once the viewer is known, so that no caller sees rows before
 * the viewer. A read marked `atMostOneRow` that finds nothing looks the token up on its own after it.
 */
export async function readWithViewerCheck<T>(ctx: RequestContext, statement: CarriedRead, run: StatementRunner = executeShaped): Promise<T[]> {
  const pending = ctx.pendingViewer;
  if (!pending || !pending.carry()) {
    const rows = await run<T>(sqlEm(ctx), statement);
    if (pending) await pending.settled();
    return rows;
  }
  const lookup = pending.sql;
  const oneRow = statement.atMostOneRow === true;
  let rows: Array<Record<string, unknown>>;
  try {
    rows = await run<Record<string, unknown>>(sqlEm(ctx), {
      sql: carriedText(lookup, statement.sql, oneRow),
      params: [pending.tokenHash, ...statement.params],
    });
  } catch (err) {
    pending.release();
    throw err;
  }
  if (oneRow && rows.length === 0) {
    pending.release();
    await pending.settled();
    return [];
  }
  const { viewer, after } = lookup.fromJson(ctx, rows[0]?.[VIEWER_COLUMN] ?? null);
  pending.settle(viewer);
  await after;
  if (oneRow) {
    // The viewer is the row's last column: deleting an object's last property keeps its fast shape (a
    // property deleted from the middle turns the row into a slow dictionary object).
    for (const row of rows) delete row[VIEWER_COLUMN];
    return rows as T[];
  }
  // Both added columns are the row's last two: deleted last first, the row keeps its fast shape.
  const out: T[] = [];
  for (const row of rows) {
    if (row[ORDER_COLUMN] === null) continue;
    delete row[VIEWER_COLUMN];
    delete row[ORDER_COLUMN];
    out.push(row as T);
  }
  return out;
}

/**
 * The answer of a REST read whose context may carry the token lookup in its first statement (a
 * `viewerAfterRead` route): `answer` runs, then nothing leaves before the token was found live. A token
 * that is not live is the 401 a lookup first gives, even when `answer` failed (bad arguments make no
 * statement: the token is then looked up on its own); an outage during the lookup is its error.
 */
export async function afterViewer<T>(ctx: RequestContext, answer: () => Promise<T>): Promise<T> {
  const pending = ctx.pendingViewer;
  if (!pending) return answer();
  let outcome: { value: T } | { error: unknown };
  try {
    outcome = { value: await answer() };
  } catch (error) {
    outcome = { error };
  }
  if (!(await pending.settled())) throw unauthenticated(TOKEN_REFUSED);
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}
