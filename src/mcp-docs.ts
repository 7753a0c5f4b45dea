import 'reflect-metadata';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderToolTable, withToolTable } from './mcp/mcp-docs';
import { toolListing } from './mcp/mcp.server';
import { mcpTools } from './modules';

/** `npm run docs:mcp`: rewrites the README's MCP tool table from the tool definitions. */
const readme = join(__dirname, '..', '..', 'README.md');
writeFileSync(readme, withToolTable(readFileSync(readme, 'utf8'), renderToolTable(mcpTools.map(toolListing))));
console.log(`README.md: ${mcpTools.length} MCP tools`);
