import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000001_foundation } from './Migration20261122000001_foundation';
import { Migration20261122000100_execution } from './Migration20261122000100_execution';
import { Migration20261122000200_architectures } from './Migration20261122000200_architectures';
import { Migration20261122000300_broadcasts } from './Migration20261122000300_broadcasts';
import { Migration20261122000400_shields } from './Migration20261122000400_shields';
import { Migration20261122000500_provenance } from './Migration20261122000500_provenance';
import { Migration20261123000200_registry_indexes } from './Migration20261123000200_registry_indexes';
import { Migration20261123000300_people } from './Migration20261123000300_people';
import { Migration20261123000400_teams } from './Migration20261123000400_teams';
import { Migration20261123000500_oauth } from './Migration20261123000500_oauth';
import { Migration20261123000800_idempotency } from './Migration20261123000800_idempotency';
import { Migration20261123000900_registry_rating } from './Migration20261123000900_registry_rating';
import { Migration20261124000100_trending_rollup } from './Migration20261124000100_trending_rollup';
import { Migration20261124000200_inbox_delivery_keys } from './Migration20261124000200_inbox_delivery_keys';
import { Migration20261127000100_plan_bytes } from './Migration20261127000100_plan_bytes';
import { Migration20261127000200_public_fork_counts } from './Migration20261127000200_public_fork_counts';
import { Migration20261127000210_oauth_code_token } from './Migration20261127000210_oauth_code_token';
import { Migration20261127000300_trending_by_what_works } from './Migration20261127000300_trending_by_what_works';
import { Migration20261127000400_proposals } from './Migration20261127000400_proposals';
import { Migration20261127000500_event_outbox } from './Migration20261127000500_event_outbox';
import { Migration20261127000600_public_forks_index } from './Migration20261127000600_public_forks_index';

/** Every migration, in order (by name). Listed explicitly so that the compiled and the ts-jest builds find the same set. */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261122000001_foundation', class: Migration20261122000001_foundation },
  { name: 'Migration20261122000100_execution', class: Migration20261122000100_execution },
  { name: 'Migration20261122000200_architectures', class: Migration20261122000200_architectures },
  { name: 'Migration20261122000300_broadcasts', class: Migration20261122000300_broadcasts },
  { name: 'Migration20261122000400_shields', class: Migration20261122000400_shields },
  { name: 'Migration20261122000500_provenance', class: Migration20261122000500_provenance },
  { name: 'Migration20261123000200_registry_indexes', class: Migration20261123000200_registry_indexes },
  { name: 'Migration20261123000300_people', class: Migration20261123000300_people },
  { name: 'Migration20261123000400_teams', class: Migration20261123000400_teams },
  { name: 'Migration20261123000500_oauth', class: Migration20261123000500_oauth },
  { name: 'Migration20261123000800_idempotency', class: Migration20261123000800_idempotency },
  { name: 'Migration20261123000900_registry_rating', class: Migration20261123000900_registry_rating },
  { name: 'Migration20261124000100_trending_rollup', class: Migration20261124000100_trending_rollup },
  { name: 'Migration20261124000200_inbox_delivery_keys', class: Migration20261124000200_inbox_delivery_keys },
  { name: 'Migration20261127000100_plan_bytes', class: Migration20261127000100_plan_bytes },
  { name: 'Migration20261127000200_public_fork_counts', class: Migration20261127000200_public_fork_counts },
  { name: 'Migration20261127000210_oauth_code_token', class: Migration20261127000210_oauth_code_token },
  { name: 'Migration20261127000300_trending_by_what_works', class: Migration20261127000300_trending_by_what_works },
  { name: 'Migration20261127000400_proposals', class: Migration20261127000400_proposals },
  { name: 'Migration20261127000500_event_outbox', class: Migration20261127000500_event_outbox },
  { name: 'Migration20261127000600_public_forks_index', class: Migration20261127000600_public_forks_index },
];
