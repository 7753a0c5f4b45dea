/** A raw MCP JSON-RPC answer over Streamable HTTP: the HTTP status and the parsed body. */
export interface McpAnswer {
  status: number;
  body: any;
}

/**
 * One JSON-RPC request to the stateless `POST /mcp`, sent as raw JSON (so tests can send what a real
 * client library would refuse to build).
 */
export async function mcpRequest(baseUrl: string, token: string | undefined, message: unknown): Promise<McpAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${baseUrl}/mcp`, { method: 'POST', headers, body: typeof message === 'string' ? message : JSON.stringify(message) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON; keep the text
  }
  return { status: res.status, body };
}

/** `tools/call` of one tool with raw arguments. */
export function mcpCall(baseUrl: string, token: string | undefined, name: string, args: unknown): Promise<McpAnswer> {
  return mcpRequest(baseUrl, token, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
}

/** The REST-shaped body an MCP tool result carries (its first text content, parsed). */
export function mcpResultBody(answer: McpAnswer): any {
  const text = answer.body?.result?.content?.[0]?.text;
  return typeof text === 'string' ? JSON.parse(text) : undefined;
}
