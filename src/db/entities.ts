import { Architecture, ArchitectureEdge, ArchitectureNode } from '../architectures/architecture.entity';
import { AccessToken } from '../auth/access-token.entity';
import { Principal } from '../auth/principal.entity';
import { Blueprint } from '../blueprints/blueprint.entity';
import { Star } from '../blueprints/star.entity';
import { ExecutionRun } from '../execution/execution-run.entity';
import { BlueprintSubscription, Broadcast, InboxDelivery } from '../broadcasts/broadcast.entity';
import { ChangelogEntry } from '../changelog/changelog-entry.entity';
import { LineageLink } from '../lineage/lineage-link.entity';
import { ToolOperation } from '../operations/tool-operation.entity';
import { Team, TeamMember } from '../teams/team.entity';
import { BlueprintVersion } from '../blueprints/blueprint-version.entity';

/** Every entity, listed so the ORM never scans folders (which differs between ts-jest and the build). */
export const entities = [
  Principal,
  AccessToken,
  Team,
  TeamMember,
  Blueprint,
  Star,
  LineageLink,
  BlueprintVersion,
  ToolOperation,
  ExecutionRun,
  ChangelogEntry,
  BlueprintSubscription,
  Broadcast,
  InboxDelivery,
  Architecture,
  ArchitectureNode,
  ArchitectureEdge,
];
