/**
 * Edges the `compose` tool proposes between blueprints, inferred from their module kinds and keys. Pure
 * and deterministic: the same sources in the same order give the same proposals. Lineage between
 * sources is not proposed: architectures compute lineage edges themselves.
 */
import type { Plan, PlanModule } from '../plans/plan';
import { EdgeType } from './architecture.entity';

export interface ComposeSource {
  id: string;
  name: string;
  plan: Pick<Plan, 'modules'>;
}

export interface InferredEdge {
  sourceId: string;
  targetId: string;
  edgeType: EdgeType;
  label: string | null;
  /** Why the edge is proposed, for the agent reviewing it. */
  reason: string;
}

/** Module kinds (lowercase words, docs/api.md) grouped by the role they suggest. */
export const kindRoles = {
  client: new Set(['frontend', 'ui', 'web', 'mobile', 'client', 'cli', 'app']),
  server: new Set(['backend', 'api', 'service', 'server', 'gateway']),
  data: new Set(['data', 'database', 'db', 'storage', 'store']),
  events: new Set(['queue', 'events', 'event', 'messaging', 'stream', 'broker']),
  auth: new Set(['auth', 'identity', 'iam']),
} as const;

type Role = keyof typeof kindRoles;

function modulesIn(plan: Pick<Plan, 'modules'>, role: Role): PlanModule[] {
  return plan.modules.filter((m) => kindRoles[role].has(m.kind));
}

function keys(modules: PlanModule[]): string {
  return modules.map((m) => m.key).join(', ');
}

/**
 * Proposals, in this order for each pair of sources (earlier source first):
 * - `auth` A -> B when B has an auth module and A has none;
 * - `api_call` A -> B when A is a client only (client modules, no server modules) and B has server modules;
 * - `shared_db` between two sources holding a data module with the same key (a copied schema);
 * - `event` between two sources that both have messaging modules;
 * - `custom` ("shared module kinds: ...") between two sources sharing module kinds when nothing above
 *   joins them and they are not related by lineage (`related(a, b)`).
 */
export function inferEdges(sources: readonly ComposeSource[], related: (a: string, b: string) => boolean = () => false): InferredEdge[] {
  const out: InferredEdge[] = [];
  const directed = (a: ComposeSource, b: ComposeSource) => {
    const bAuth = modulesIn(b.plan, 'auth');
    if (bAuth.length > 0 && modulesIn(a.plan, 'auth').length === 0)
      out.push({
        sourceId: a.id,
        targetId: b.id,
        edgeType: EdgeType.AUTH,
        label: `auth: ${keys(bAuth)}`,
        reason: `${b.name} has auth modules and ${a.name} has none`,
      });
    const aClient = modulesIn(a.plan, 'client');
    const bServer = modulesIn(b.plan, 'server');
    if (aClient.length > 0 && modulesIn(a.plan, 'server').length === 0 && bServer.length > 0)
      out.push({
        sourceId: a.id,
        targetId: b.id,
        edgeType: EdgeType.API_CALL,
        label: `${keys(aClient)} -> ${keys(bServer)}`,
        reason: `${a.name} is a client without a server; ${b.name} serves an API`,
      });
  };
  for (let i = 0; i < sources.length; i++) {
    for (let j = i + 1; j < sources.length; j++) {
      const a = sources[i]!;
      const b = sources[j]!;
      const before = out.length;
      directed(a, b);
      directed(b, a);
      const bDataKeys = new Set(modulesIn(b.plan, 'data').map((m) => m.key));
      const sharedData = modulesIn(a.plan, 'data').filter((m) => bDataKeys.has(m.key));
      if (sharedData.length > 0)
        out.push({
          sourceId: a.id,
          targetId: b.id,
          edgeType: EdgeType.SHARED_DB,
          label: `shared ${keys(sharedData)}`,
          reason: `both hold data module(s) ${keys(sharedData)}`,
        });
      const aEvents = modulesIn(a.plan, 'events');
      const bEvents = modulesIn(b.plan, 'events');
      if (aEvents.length > 0 && bEvents.length > 0)
        out.push({
          sourceId: a.id,
          targetId: b.id,
          edgeType: EdgeType.EVENT,
          label: `${keys(aEvents)} <-> ${keys(bEvents)}`,
          reason: 'both have messaging modules',
        });
      if (out.length === before && !related(a.id, b.id)) {
        const bKinds = new Set(b.plan.modules.map((m) => m.kind));
        const shared = [...new Set(a.plan.modules.map((m) => m.kind))].filter((k) => bKinds.has(k)).sort();
        if (shared.length > 0)
          out.push({
            sourceId: a.id,
            targetId: b.id,
            edgeType: EdgeType.CUSTOM,
            label: `shared module kinds: ${shared.join(', ')}`,
            reason: 'they build the same kinds of modules',
          });
      }
    }
  }
  return out;
}
