import { EdgeType } from '../../../src/architectures/architecture.entity';
import { inferEdges, type ComposeSource } from '../../../src/architectures/inference';

const mod = (key: string, kind: string) => ({ key, name: key, summary: '', kind, dependsOn: [] });
const source = (id: string, ...modules: Array<[string, string]>): ComposeSource => ({
  id,
  name: id.toUpperCase(),
  plan: { modules: modules.map(([k, kind]) => mod(k, kind)) },
});

describe('inferEdges', () => {
  const spa = source('spa', ['web', 'frontend']);
  const api = source('api', ['http', 'backend'], ['db', 'data']);
  const idp = source('idp', ['login', 'auth'], ['users', 'data']);
  const worker = source('worker', ['jobs', 'queue'], ['db', 'data']);

  it('proposes api_call from a client-only blueprint to one that serves an API', () => {
    const edges = inferEdges([spa, api]);
    expect(edges).toContainEqual(expect.objectContaining({ sourceId: 'spa', targetId: 'api', edgeType: EdgeType.API_CALL, label: 'web -> http' }));
  });

  it('proposes auth towards the blueprint that has the auth modules, from each that lacks them', () => {
    const edges = inferEdges([api, idp]).filter((e) => e.edgeType === EdgeType.AUTH);
    expect(edges).toEqual([expect.objectContaining({ sourceId: 'api', targetId: 'idp', label: 'auth: login' })]);
  });

  it('proposes shared_db for data modules with the same key, not for different ones', () => {
    expect(inferEdges([api, worker]).filter((e) => e.edgeType === EdgeType.SHARED_DB)).toEqual([
      expect.objectContaining({ sourceId: 'api', targetId: 'worker', label: 'shared db' }),
    ]);
    expect(inferEdges([api, idp]).filter((e) => e.edgeType === EdgeType.SHARED_DB)).toEqual([]);
  });

  it('proposes event between two blueprints with messaging modules', () => {
    const other = source('other', ['bus', 'events']);
    expect(inferEdges([worker, other]).map((e) => e.edgeType)).toContain(EdgeType.EVENT);
  });

  it('falls back to a labelled custom edge for shared module kinds, unless lineage already relates the pair', () => {
    const a = source('a', ['x', 'backend']);
    const b = source('b', ['y', 'backend'], ['z', 'infra']);
    expect(inferEdges([a, b])).toEqual([expect.objectContaining({ edgeType: EdgeType.CUSTOM, label: 'shared module kinds: backend' })]);
    expect(inferEdges([a, b], () => true)).toEqual([]);
  });

  it('proposes nothing for blueprints with nothing in common', () => {
    expect(inferEdges([source('a', ['x', 'infra']), source('b', ['y', 'docs'])])).toEqual([]);
  });

  it('is deterministic and never proposes lineage edges or self-loops', () => {
    const all = [spa, api, idp, worker];
    const once = inferEdges(all);
    expect(inferEdges(all)).toEqual(once);
    for (const e of once) {
      expect(e.sourceId).not.toBe(e.targetId);
      expect([EdgeType.LINEAGE_FORK, EdgeType.LINEAGE_BREED]).not.toContain(e.edgeType);
    }
  });
});
