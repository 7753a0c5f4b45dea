import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { getBlueprint } from '../blueprints/blueprint.service';
import { planBytesOf } from '../blueprints/plan-read';
import { isUuid } from '../platform/sql/ids';
import type { RequestContext } from '../platform/context';
import { conflict, forbidden, invalid, invalidAll, notFound } from '../platform/errors';
import { assertValid, compileSchema, type ValidationIssue } from '../platform/json-schema';
import { architectureInputs } from './architecture.contract';
import { EdgeType, lineageEdgeTypes } from './architecture.entity';
import { cardOf, isLineageEdgeId, type ArchitectureRecord, type EdgeView, type NodeView } from './architecture.read';
import { lockForEdit, publishChange } from './architecture.service';
import { insertEdges, insertNodes } from './architecture.write';
import { placeNode, type Point } from './layout';
import { composition } from './zoom';

const nodeBody = compileSchema(architectureInputs.addNode);
const edgeBody = compileSchema(architectureInputs.addEdge);
const layoutBody = compileSchema(architectureInputs.layout);

export const lineageEdgeMessage = 'lineage_fork and lineage_breed edges are computed from fork and breed ancestry; they cannot be created or deleted by hand';

async function nodeRowsOf(
  tx: EntityManager,
  architectureId: string,
): Promise<Array<{ id: string; blueprint_id: string; position_x: number; position_y: number }>> {
  return tx.execute('select id, blueprint_id, position_x, position_y from architecture_node where architecture_id = ?', [architectureId]);
}

/**
 * Adds a blueprint the caller may read as a node. Without a position the node goes to the first grid
 * cell clear of every other node (the architecture row is locked, so concurrent adds never collide).
 */
export async function addNode(ctx: RequestContext, slug: string, body: unknown): Promise<NodeView> {
  const node = await ctx.em.transactional(async (tx) => {
    const arch = await lockForEdit(ctx, tx, slug);
    const input = assertValid<{ blueprint_id: string; position_x?: number; position_y?: number }>(nodeBody, body ?? {}, 'body');
    if ((input.position_x === undefined) !== (input.position_y === undefined)) {
      const missing = input.position_x === undefined ? 'position_x' : 'position_y';
      throw invalid(`body/${missing}`, 'is required when the other coordinate is given (or leave both out for automatic placement)');
    }
    const bp = await getBlueprint(ctx, input.blueprint_id);
    const existing = await nodeRowsOf(tx, arch.id);
    const same = existing.find((n) => n.blueprint_id === bp.id);
    if (same) throw conflict('That blueprint is already a node of this architecture', { node_id: same.id });
    if (existing.length >= ctx.config.limits.architectureMaxNodes)
      throw invalid('body', `the architecture already holds the maximum of ${ctx.config.limits.architectureMaxNodes} nodes`);
    const position: Point =
      input.position_x !== undefined && input.position_y !== undefined
        ? { x: input.position_x, y: input.position_y }
        : placeNode(existing.map((n) => ({ x: Number(n.position_x), y: Number(n.position_y) })));
    const id = randomUUID();
    await insertNodes(tx, arch.id, [{ id, blueprintId: bp.id, x: position.x, y: position.y }]);
    await publishChange(ctx, tx, arch, 'node_added', id);
    return {
      id,
      architectureId: arch.id,
      blueprintId: bp.id,
      position,
      card: cardOf(bp),
      composition: composition(bp.plan),
      redacted: false,
      planBytes: planBytesOf(bp),
    };
  });
  ctx.loaders.clear();
  return node;
}

/** Adds a manual edge between two nodes of the architecture; lineage types are 403 and write nothing. */
export async function addEdge(ctx: RequestContext, slug: string, body: unknown): Promise<EdgeView> {
  const edge = await ctx.em.transactional(async (tx) => {
    const arch = await lockForEdit(ctx, tx, slug);
    const requested = (body as { edge_type?: unknown } | null)?.edge_type;
    if (lineageEdgeTypes.includes(requested as EdgeType)) throw forbidden(lineageEdgeMessage);
    const input = assertValid<{ source_node_id: string; target_node_id: string; edge_type: EdgeType; label?: string | null }>(edgeBody, body ?? {}, 'body');
    const label = input.label?.trim() || null;
    if (input.edge_type === EdgeType.CUSTOM && label === null) throw invalid('body/label', 'is required for a custom edge (it names the relationship)');
    const nodeIds = new Set((await nodeRowsOf(tx, arch.id)).map((n) => n.id));
    const issues: ValidationIssue[] = [];
    for (const field of ['source_node_id', 'target_node_id'] as const)
      if (!nodeIds.has(input[field].toLowerCase())) issues.push({ path: `body/${field}`, message: 'is not a node of this architecture' });
    if (issues.length > 0) throw invalidAll(issues);
    const source = input.source_node_id.toLowerCase();
    const target = input.target_node_id.toLowerCase();
    if (source === target) throw invalid('body/target_node_id', 'must differ from source_node_id (an edge joins two nodes)');
    const clash: Array<{ id: string }> = await tx.execute(
      `select id from architecture_edge where source_node_id = ? and target_node_id = ? and edge_type = ? and coalesce(label, '') = ?`,
      [source, target, input.edge_type, label ?? ''],
    );
    if (clash[0]) throw conflict('An identical edge already joins these nodes', { edge_id: clash[0].id });
    const counted: Array<{ n: string }> = await tx.execute('select count(*) as n from architecture_edge where architecture_id = ?', [arch.id]);
    if (Number(counted[0]!.n) >= ctx.config.limits.architectureMaxEdges)
      throw invalid('body', `the architecture already holds the maximum of ${ctx.config.limits.architectureMaxEdges} edges`);
    const id = randomUUID();
    await insertEdges(tx, arch.id, [{ id, sourceNodeId: source, targetNodeId: target, edgeType: input.edge_type, label }]);
    await publishChange(ctx, tx, arch, 'edge_added', id);
    return { id, sourceNodeId: source, targetNodeId: target, edgeType: input.edge_type, label, computed: false };
  });
  ctx.loaders.clear();
  return edge;
}

/**
 * Moves several nodes at once, all or nothing: any unknown node id (or a node listed twice) is a 400
 * naming each offending entry, and no node moves.
 */
export async function updateLayout(ctx: RequestContext, slug: string, body: unknown): Promise<ArchitectureRecord> {
  const arch = await ctx.em.transactional(async (tx) => {
    const arch = await lockForEdit(ctx, tx, slug);
    const entries = assertValid<Array<{ nodeId: string; position: Point }>>(layoutBody, body ?? null, 'body');
    const nodeIds = new Set((await nodeRowsOf(tx, arch.id)).map((n) => n.id));
    const seen = new Set<string>();
    const issues: ValidationIssue[] = [];
    entries.forEach((e, i) => {
      const id = e.nodeId.toLowerCase();
      if (!nodeIds.has(id)) issues.push({ path: `body/${i}/nodeId`, message: 'is not a node of this architecture' });
      else if (seen.has(id)) issues.push({ path: `body/${i}/nodeId`, message: 'is listed more than once' });
      seen.add(id);
    });
    if (issues.length > 0) throw invalidAll(issues);
    if (entries.length === 0) return arch;
    await tx.execute(
      `update architecture_node n set position_x = v.x, position_y = v.y
         from unnest(?::uuid[], ?::float8[], ?::float8[]) as v(id, x, y)
        where n.id = v.id and n.architecture_id = ?`,
      [
        `{${entries.map((e) => e.nodeId.toLowerCase()).join(',')}}`,
        `{${entries.map((e) => e.position.x).join(',')}}`,
        `{${entries.map((e) => e.position.y).join(',')}}`,
        arch.id,
      ],
    );
    await publishChange(ctx, tx, arch, 'layout_updated', null);
    return arch;
  });
  ctx.loaders.clear();
  return arch;
}

/** Removes a node and every edge touching it. */
export async function removeNode(ctx: RequestContext, slug: string, nodeId: string): Promise<ArchitectureRecord> {
  const arch = await ctx.em.transactional(async (tx) => {
    const arch = await lockForEdit(ctx, tx, slug);
    const id = nodeId.toLowerCase();
    const removed = isUuid(id)
      ? await tx.execute('delete from architecture_node where id = ? and architecture_id = ?', [id, arch.id], 'run')
      : { affectedRows: 0 };
    if (((removed as { affectedRows?: number }).affectedRows ?? 0) === 0) throw notFound('architecture node', nodeId);
    await publishChange(ctx, tx, arch, 'node_removed', id);
    return arch;
  });
  ctx.loaders.clear();
  return arch;
}

/** Removes a manual edge; a lineage edge id is 403 (they are computed) and removes nothing. */
export async function removeEdge(ctx: RequestContext, slug: string, edgeId: string): Promise<ArchitectureRecord> {
  const arch = await ctx.em.transactional(async (tx) => {
    const arch = await lockForEdit(ctx, tx, slug);
    if (isLineageEdgeId(edgeId)) throw forbidden(lineageEdgeMessage);
    const id = edgeId.toLowerCase();
    const removed = isUuid(id)
      ? await tx.execute('delete from architecture_edge where id = ? and architecture_id = ?', [id, arch.id], 'run')
      : { affectedRows: 0 };
    if (((removed as { affectedRows?: number }).affectedRows ?? 0) === 0) throw notFound('architecture edge', edgeId);
    await publishChange(ctx, tx, arch, 'edge_removed', id);
    return arch;
  });
  ctx.loaders.clear();
  return arch;
}
