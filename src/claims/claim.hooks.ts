import type { EntityManager } from '@mikro-orm/postgresql';
import { TxHookPoint, type TxHook } from '../platform/sql/tx-hooks';

/** What a claim moves, as the answer counts it. */
export type ClaimedKind = 'blueprints' | 'architectures' | 'runs' | 'operations';

/** A claim in progress: every area moves what `from` owns to `to`, and tallies it in `moved`. */
export interface PrincipalClaim {
  from: string;
  to: string;
  moved: Map<ClaimedKind, number>;
}

/**
 * Fired inside the claiming transaction: each area that owns things by principal moves them itself, so
 * the claim never writes another area's tables.
 */
export const principalClaimed = new TxHookPoint<PrincipalClaim>('principal.claimed');

/**
 * The hook of an area whose `table` names its owner in `column`: moves every row of `from` to `to` and
 * tallies them as `kind`. The area passes its own table and column; this only spells the statement once.
 */
export function moveOwnedRows(kind: ClaimedKind, table: string, column: string): TxHook<PrincipalClaim> {
  return async (tx: EntityManager, _ctx, claim) => {
    const result = (await tx.execute(`update ${table} set ${column} = ? where ${column} = ?`, [claim.to, claim.from], 'run')) as { affectedRows?: number };
    claim.moved.set(kind, (claim.moved.get(kind) ?? 0) + Number(result.affectedRows ?? 0));
  };
}
