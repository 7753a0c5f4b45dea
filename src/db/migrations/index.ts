import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000001_foundation } from './Migration20261122000001_foundation';
import { Migration20261122000200_architectures } from './Migration20261122000200_architectures';

/** Every migration, in order. Listed explicitly so that the compiled and the ts-jest builds find the same set. */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261122000001_foundation', class: Migration20261122000001_foundation },
  { name: 'Migration20261122000200_architectures', class: Migration20261122000200_architectures },
];
