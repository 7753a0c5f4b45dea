import type { GraphQLSchema } from 'graphql';
import type { McpToolDefinition } from './mcp-tool';
import type { AppDeps } from './http/request-context';
import type { RouteModule } from './http/routes';
import type { TxHookRegistration } from './sql/tx-hooks';

/**
 * Background work an area runs for the app's lifetime (e.g. the execution idle sweep): started once the
 * server is ready, and stopped (and awaited) when it closes, before the database goes away.
 */
export interface Job {
  name: string;
  /** Starts the job; the function it returns stops it and resolves when in-flight work is done. */
  start(deps: AppDeps, onError: (err: unknown) => void): () => Promise<void>;
}

/**
 * Everything one domain area adds to the app, exported once from `<area>/<area>.module.ts`; `modules.ts`
 * lists the areas, and the app takes each part from there.
 */
export interface AreaModule {
  name: string;
  /** type-graphql resolver classes. */
  resolvers?: Function[];
  /** REST routes. */
  routes?: RouteModule;
  /** MCP tools, served at `POST /mcp`. */
  mcpTools?: McpToolDefinition[];
  jobs?: Job[];
  /**
   * Adjustments of the executable schema once type-graphql has built it, for hot paths only: e.g. a field
   * answered from data an enclosing field already loaded, or a subscription field resolved without
   * type-graphql's per-call argument handling (`directResolver`). The schema itself must not change.
   */
  schemaHooks?: Array<(schema: GraphQLSchema) => void>;
  /**
   * The area's part in a lower area's writes (`on(point, hook)`, see tx-hooks.ts): e.g. architectures
   * remove a deleted blueprint's nodes, so blueprints never write architecture tables.
   */
  hooks?: TxHookRegistration[];
  /** Gauges the area adds to `/metrics`, each read once per scrape (keep them cheap). */
  gauges?: AreaGauge[];
}

/** A Prometheus gauge an area declares: its name, help text and how to read its value. */
export interface AreaGauge {
  name: string;
  help: string;
  read(deps: AppDeps): Promise<number>;
}
