/**
 * Automatic placement of architecture nodes. Every node is drawn as a fixed-size box whose top-left corner
 * is its position; a node added without a position goes to the first cell of a grid where its box keeps a
 * full gap from every box already on the canvas, wherever those were put by hand.
 */
export interface Point {
  x: number;
  y: number;
}

/** The box every node is drawn as, in canvas units. */
export const NODE_WIDTH = 240;
export const NODE_HEIGHT = 120;
/** The space kept between an automatically placed node and its neighbours. */
export const NODE_GAP = 40;
/** Cells per grid row before the grid wraps. */
export const GRID_COLUMNS = 6;

/** True when the boxes at `a` and `b` come closer than `margin` (0: when they share any area). */
export function overlaps(a: Point, b: Point, margin = 0): boolean {
  return a.x < b.x + NODE_WIDTH + margin && b.x < a.x + NODE_WIDTH + margin && a.y < b.y + NODE_HEIGHT + margin && b.y < a.y + NODE_HEIGHT + margin;
}

/** The top-left corner of grid cell `index` (row by row, `GRID_COLUMNS` to a row). */
export function gridCell(index: number): Point {
  const column = index % GRID_COLUMNS;
  const row = Math.floor(index / GRID_COLUMNS);
  return { x: column * (NODE_WIDTH + NODE_GAP), y: row * (NODE_HEIGHT + NODE_GAP) };
}

/**
 * The position for one new node: the first grid cell whose box is at least `NODE_GAP` away from every
 * existing box. Always found: n boxes can block at most finitely many cells.
 */
export function placeNode(existing: readonly Point[]): Point {
  for (let index = 0; ; index++) {
    const cell = gridCell(index);
    if (!existing.some((p) => overlaps(cell, p, NODE_GAP))) return cell;
  }
}

/** Positions for `count` new nodes, each placed as if the ones before it were already on the canvas. */
export function placeNodes(existing: readonly Point[], count: number): Point[] {
  const taken = [...existing];
  const placed: Point[] = [];
  for (let i = 0; i < count; i++) {
    const p = placeNode(taken);
    taken.push(p);
    placed.push(p);
  }
  return placed;
}
