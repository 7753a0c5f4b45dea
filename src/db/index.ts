import type { DatabaseSchema } from '../platform/sql/database';
import { entities } from './entities';
import { migrations } from './migrations';

/** The service's database: every entity and every committed migration (what `openDatabase` is given). */
export const databaseSchema: DatabaseSchema = { entities, migrations };
