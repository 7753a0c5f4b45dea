import fc from 'fast-check';
import { GRID_COLUMNS, NODE_GAP, NODE_HEIGHT, NODE_WIDTH, gridCell, overlaps, placeNode, placeNodes, type Point } from '../../../src/architectures/layout';

describe('overlaps', () => {
  it('is true for boxes sharing area and false for boxes that only touch', () => {
    expect(overlaps({ x: 0, y: 0 }, { x: NODE_WIDTH - 1, y: NODE_HEIGHT - 1 })).toBe(true);
    expect(overlaps({ x: 0, y: 0 }, { x: NODE_WIDTH, y: 0 })).toBe(false);
    expect(overlaps({ x: 0, y: 0 }, { x: 0, y: NODE_HEIGHT })).toBe(false);
  });

  it('counts a box inside the margin as overlapping', () => {
    expect(overlaps({ x: 0, y: 0 }, { x: NODE_WIDTH + NODE_GAP - 1, y: 0 }, NODE_GAP)).toBe(true);
    expect(overlaps({ x: 0, y: 0 }, { x: NODE_WIDTH + NODE_GAP, y: 0 }, NODE_GAP)).toBe(false);
  });
});

describe('placeNode', () => {
  it('puts the first node at the origin and fills a row before wrapping', () => {
    const placed = placeNodes([], GRID_COLUMNS + 1);
    expect(placed[0]).toEqual({ x: 0, y: 0 });
    expect(placed[1]).toEqual({ x: NODE_WIDTH + NODE_GAP, y: 0 });
    expect(placed[GRID_COLUMNS]).toEqual({ x: 0, y: NODE_HEIGHT + NODE_GAP });
  });

  it('skips cells that a hand-placed node covers, even partly', () => {
    const manual = { x: gridCell(0).x + 100, y: 30 }; // straddles cells 0 and 1
    expect(placeNode([manual])).toEqual(gridCell(2));
  });

  it('reuses a cell freed by a node that moved away', () => {
    const [a, b] = placeNodes([], 2);
    const moved = { x: 5000, y: 5000 };
    expect(placeNode([moved, b!])).toEqual(a);
  });

  const point = fc.record({ x: fc.integer({ min: -2000, max: 3000 }), y: fc.integer({ min: -2000, max: 3000 }) });
  // A canvas history: each entry is a hand-placed node (a point) or an automatic one (null).
  const history = fc.array(fc.option(point, { nil: null, freq: 2 }), { maxLength: 60 });

  it('never places a node over any node already on the canvas, now or after later adds', () => {
    fc.assert(
      fc.property(history, (entries) => {
        const canvas: Point[] = [];
        for (const entry of entries) {
          const p = entry ?? placeNode(canvas);
          if (entry === null) for (const other of canvas) if (overlaps(p, other)) return false;
          canvas.push(p);
        }
        return true;
      }),
      { numRuns: 300 },
    );
  });

  it('places a batch of nodes pairwise apart', () => {
    fc.assert(
      fc.property(fc.array(point, { maxLength: 20 }), fc.integer({ min: 0, max: 40 }), (existing, count) => {
        const placed = placeNodes(existing, count);
        const all = [...existing, ...placed];
        return placed.every((p, i) => all.every((q, j) => j === existing.length + i || !overlaps(p, q, NODE_GAP)));
      }),
      { numRuns: 200 },
    );
  });
});
