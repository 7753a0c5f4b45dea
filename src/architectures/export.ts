/**
 * An architecture as text: Mermaid flowchart, Graphviz DOT, or JSON (the REST body). Pure functions of
 * what the viewer sees, so redacted nodes stay redacted in every format.
 */
import { registerEnumType } from 'type-graphql';
import type { RequestContext } from '../platform/context';
import { invalid } from '../platform/errors';
import { architectureView, getArchitecture, type ArchitectureView, type NodeView } from './architecture.read';
import { toArchitectureBody } from './architecture.wire';
import { exportFormats } from './architecture.contract';

export { exportFormats };
export type ExportFormat = (typeof exportFormats)[number];

/** GraphQL's name for the same formats (`Architecture.export(format:)`); the values are the REST ones. */
export enum ExportFormatEnum {
  MERMAID = 'mermaid',
  DOT = 'dot',
  JSON = 'json',
}
registerEnumType(ExportFormatEnum, { name: 'ArchitectureExportFormat', description: 'Mermaid flowchart, Graphviz DOT, or the REST JSON body.' });

export const exportContentTypes: Record<ExportFormat, string> = {
  mermaid: 'text/vnd.mermaid; charset=utf-8',
  dot: 'text/vnd.graphviz; charset=utf-8',
  json: 'application/json; charset=utf-8',
};

const REDACTED_LABEL = 'private blueprint';

function nodeLines(n: NodeView): string[] {
  if (!n.card) return [REDACTED_LABEL];
  return [n.card.name, `${n.card.moduleCount} modules, ${n.card.stepCount} steps`];
}

function edgeText(type: string, label: string | null): string {
  return label ? `${type}: ${label}` : type;
}

/** Mermaid text: entity codes for the characters that would end a label or start markup. */
export function mermaidText(text: string): string {
  return text
    .replace(/#/g, '#35;')
    .replace(/"/g, '#quot;')
    .replace(/\|/g, '#124;')
    .replace(/</g, '#lt;')
    .replace(/>/g, '#gt;')
    .replace(/[\r\n]+/g, ' ');
}

/** A Mermaid flowchart; nodes are `n1, n2, ...` in the architecture's order, with their ids in comments. */
export function toMermaid(v: ArchitectureView): string {
  const alias = new Map(v.nodes.map((n, i) => [n.id, `n${i + 1}`]));
  const lines = [`%% ${mermaidText(v.architecture.name)} (${v.architecture.slug})`, 'flowchart LR'];
  for (const n of v.nodes) {
    lines.push(`  %% ${alias.get(n.id)} = node ${n.id}`);
    lines.push(`  ${alias.get(n.id)}["${nodeLines(n).map(mermaidText).join('<br/>')}"]`);
  }
  for (const e of v.edges) {
    const arrow = e.computed ? '-.->' : '-->';
    lines.push(`  ${alias.get(e.sourceNodeId)} ${arrow}|${mermaidText(edgeText(e.edgeType, e.label))}| ${alias.get(e.targetNodeId)}`);
  }
  return lines.join('\n') + '\n';
}

/** A DOT string literal. */
export function dotString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r?\n/g, '\\n')}"`;
}

/**
 * A Graphviz digraph. Positions are pinned (`pos="x,y!"`, y flipped because DOT's y axis points up) so
 * `neato -n` draws the canvas as stored; `dot` lays it out afresh.
 */
export function toDot(v: ArchitectureView): string {
  const lines = [
    `digraph ${dotString(v.architecture.slug)} {`,
    `  label=${dotString(v.architecture.name)};`,
    '  rankdir=LR;',
    '  node [shape=box, style=rounded];',
  ];
  for (const n of v.nodes) {
    const style = n.redacted ? ', style="rounded,dashed"' : '';
    lines.push(`  ${dotString(n.id)} [label=${dotString(nodeLines(n).join('\n'))}, pos=${dotString(`${n.position.x},${-n.position.y}!`)}${style}];`);
  }
  for (const e of v.edges) {
    const style = e.computed ? ', style=dashed' : '';
    lines.push(`  ${dotString(e.sourceNodeId)} -> ${dotString(e.targetNodeId)} [label=${dotString(edgeText(e.edgeType, e.label))}${style}];`);
  }
  lines.push('}');
  return lines.join('\n') + '\n';
}

export function exportArchitecture(v: ArchitectureView, format: ExportFormat): string {
  if (format === 'mermaid') return toMermaid(v);
  if (format === 'dot') return toDot(v);
  return JSON.stringify(toArchitectureBody(v), null, 2) + '\n';
}

/**
 * `GET /api/architectures/:slug/export` (REST and MCP): the text and its content type. REST answers the
 * text as the body; the MCP tool answers `{slug, format, content_type, text}`.
 */
export async function architectureExport(
  ctx: RequestContext,
  slug: string,
  rawFormat: unknown = 'json',
): Promise<{ slug: string; format: ExportFormat; content_type: string; text: string }> {
  const arch = await getArchitecture(ctx, slug, 'edges');
  const format = rawFormat as ExportFormat;
  if (!exportFormats.includes(format)) throw invalid('format', `must be one of: ${exportFormats.join(', ')}`);
  const view = await architectureView(ctx, arch);
  return { slug: arch.slug, format, content_type: exportContentTypes[format], text: exportArchitecture(view, format) };
}
