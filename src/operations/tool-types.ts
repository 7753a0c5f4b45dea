/** The 25 tool types (docs/api.md). Twenty come from the product brief; this project adds the other five. */
export const toolTypes = [
  'create',
  'breed',
  'splice',
  'shatter',
  'weave',
  'transmute',
  'distill',
  'amplify',
  'style_transfer',
  'subtract',
  'intersect',
  'difference',
  'fuzz',
  'inoculation',
  'phenotyping',
  'holographic_doc',
  'swarm_partition',
  'semantic_rollback',
  'topological_search',
  'upstream_shield',
  'upstream_merge',
  'prune',
  'lint',
  'mutate',
  'compose',
] as const;

export type ToolType = (typeof toolTypes)[number];

export function isToolType(value: unknown): value is ToolType {
  return typeof value === 'string' && (toolTypes as readonly string[]).includes(value);
}
