import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000001_foundation } from './Migration20261122000001_foundation';
import { Migration20261122000100_execution } from './Migration20261122000100_execution';
import { Migration20261122000200_architectures } from './Migration20261122000200_architectures';
import { Migration20261122000300_broadcasts } from './Migration20261122000300_broadcasts';
import { Migration20261122000400_shields } from './Migration20261122000400_shields';
import { Migration20261122000500_provenance } from './Migration20261122000500_provenance';

/** Every migration, in order (by name). Listed explicitly so that the compiled and the ts-jest builds find the same set. */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261122000001_foundation', class: Migration20261122000001_foundation },
  { name: 'Migration20261122000100_execution', class: Migration20261122000100_execution },
  { name: 'Migration20261122000200_architectures', class: Migration20261122000200_architectures },
  { name: 'Migration20261122000300_broadcasts', class: Migration20261122000300_broadcasts },
  { name: 'Migration20261122000400_shields', class: Migration20261122000400_shields },
  { name: 'Migration20261122000500_provenance', class: Migration20261122000500_provenance },
];
