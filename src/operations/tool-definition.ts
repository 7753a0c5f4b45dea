import type { EntityManager } from '@mikro-orm/postgresql';
import type { Blueprint } from '../blueprints/blueprint.entity';
import type { RequestContext } from '../platform/context';
import type { JsonSchema } from '../platform/json-schema';
import type { ToolOperation } from './tool-operation.entity';
import type { ToolType } from './tool-types';

/** What a finished tool leaves behind (docs/api.md). */
export type ToolOutput = 'new' | 'inplace' | 'report' | 'architecture';

/** Everything a tool's prompts and rules may look at. */
export interface ToolContext<P = Record<string, unknown>, S = Record<string, unknown>> {
  ctx: RequestContext;
  /** The transaction of the current submission (or of the start). */
  tx: EntityManager;
  operation: ToolOperation;
  /** The source blueprints, in the order given, each readable (or editable for INPLACE tools). */
  sources: Blueprint[];
  params: P;
  /** What the accepted submissions built up so far. */
  state: S;
}

/** One turn of a tool: a prompt for the calling agent and the JSON Schema its submission must satisfy. */
export interface ToolStep<P = any, S = any> {
  title: string;
  prompt(c: ToolContext<P, S>): string;
  /** JSON Schema of the submission; compiled once per distinct schema (`validatorFor`). */
  submissionSchema: JsonSchema;
  /**
   * Checks the submission beyond its schema (throw a 400 naming the path under `submission/`) and returns
   * the new state. Runs inside the submission's transaction; nothing is kept when it throws.
   */
  accept(c: ToolContext<P, S>, submission: any): S | Promise<S>;
}

/** A tool type, declared once; the engine does tokens, status, access, validation and transactions. */
export interface ToolDefinition<P = any, S = any> {
  type: ToolType;
  summary: string;
  sources: { min: number; max: number };
  /** `read`: sources must be readable; `edit`: owner or team editor (INPLACE tools). */
  sourceAccess: 'read' | 'edit';
  output: ToolOutput;
  paramsSchema: JsonSchema;
  /** Extra checks of params against the sources, at start. */
  checkStart?(c: ToolContext<P, S>): void | Promise<void>;
  initialState(c: ToolContext<P, S>): S | Promise<S>;
  /** The steps; must depend only on sources and params, so their number is fixed at start. */
  steps(c: ToolContext<P, S>): ToolStep<P, S>[];
  /** Writes the output after the last accepted step and returns the result document. */
  finish(c: ToolContext<P, S>): Promise<Record<string, unknown>>;
}
