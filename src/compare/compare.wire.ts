import type { KeyedDiff, PlanDiff, StepsDiff } from '../plans/algebra';
import { wireName } from '../plans/plan';
import type { ForkComparison, KeyComparison } from './compare.service';

const wire = (name: string) => wireName[name] ?? name;

function keyedToWire(d: KeyedDiff) {
  return { added: d.added, removed: d.removed, changed: d.changed.map((c) => ({ key: c.key, fields: c.fields.map(wire) })) };
}

/** A plan diff with the REST names (`design_system`, `module_key`, `depends_on`). */
export function planDiffToWire(d: PlanDiff) {
  return {
    modules: keyedToWire(d.modules),
    steps: { ...keyedToWire(d.steps), reordered: (d.steps as StepsDiff).reordered },
    configuration: d.configuration,
    design_system: d.designSystem,
    sections_touched: d.sectionsTouched.map(wire),
  };
}

function keyToWire(k: KeyComparison) {
  const side = (c: KeyComparison['ahead']) => (c ? { change: c.change, fields: c.fields.map(wire) } : null);
  return { key: k.key, ahead: side(k.ahead), behind: side(k.behind), conflict: k.conflict };
}

/** `GET /api/blueprints/:id/compare`. */
export function toComparisonBody(c: ForkComparison) {
  return {
    blueprint_id: c.fork.id,
    parent: { id: c.parent.id, slug: c.parent.slug, name: c.parent.name },
    base_version: c.baseVersion,
    parent_version: c.parentVersion,
    status: c.status,
    ahead: planDiffToWire(c.ahead),
    behind: planDiffToWire(c.behind),
    modules: c.modules.map(keyToWire),
    steps: c.steps.map(keyToWire),
  };
}
