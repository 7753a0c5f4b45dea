import 'reflect-metadata';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderToolTable, withToolTable } from './mcp/mcp-docs';
import { toolListing } from './mcp/mcp.server';
import { mcpTools } from './modules';
import { defaultLimits } from './platform/config';

/** `npm run docs:mcp`: rewrites the MCP tool table of docs/mcp-tools.md from the tool definitions. */
const page = join(__dirname, '..', '..', 'docs', 'mcp-tools.md');
writeFileSync(page, withToolTable(readFileSync(page, 'utf8'), renderToolTable(mcpTools.map((t) => toolListing(t, defaultLimits)))));
console.log(`docs/mcp-tools.md: ${mcpTools.length} MCP tools`);
