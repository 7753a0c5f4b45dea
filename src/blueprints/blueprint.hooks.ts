import { TxHookPoint } from '../platform/sql/tx-hooks';

/** What a blueprint hook is told: which blueprint, and who changed it. */
export interface BlueprintChange {
  blueprintId: string;
  actorId: string;
}

/**
 * Fired inside the deleting transaction, before the blueprint's row goes: areas above blueprints remove
 * what they hold of it (architectures: its nodes and their edges) and tell their own subscribers.
 */
export const blueprintDeleted = new TxHookPoint<BlueprintChange>('blueprint.deleted');

/**
 * Fired inside the transaction that changed what others see of a blueprint (its name or visibility):
 * areas that show it (architectures) tell their subscribers to re-read it.
 */
export const blueprintShownChanged = new TxHookPoint<BlueprintChange>('blueprint.shown-changed');
