import type { AreaModule } from '../platform/area';
import { coreMcpTools } from './core.tools';

/** The MCP transport's own tools that still live here (the rest live in their areas); `modules.ts` adds the `/mcp` route over every area's tools. */
export const mcpModule: AreaModule = {
  name: 'mcp',
  mcpTools: coreMcpTools,
};
