/**
 * RFC 8707 resource indicators, compared as canonical URIs: scheme and host lowercased, the default port
 * dropped, no user info, query or fragment, one trailing slash of the path ignored (the MCP
 * specification's canonical form of a server URI). Two resources are the same only when their canonical
 * forms are equal: never by prefix, which `http://localhost.evil.example/mcp` or
 * `http://localhost@evil.example/mcp` would pass.
 */
export function canonicalResource(value: URL | string): string | null {
  let url: URL;
  try {
    url = typeof value === 'string' ? new URL(value) : new URL(value.href);
  } catch {
    return null;
  }
  if (url.username || url.password || url.search || url.hash) return null;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const path = url.pathname.length > 1 && url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : url.pathname;
  return `${url.protocol}//${url.host}${path}`;
}

/** The one resource this server protects: its MCP endpoint under the public origin. */
export function mcpResourceOf(origin: string): string {
  return canonicalResource(new URL('/mcp', origin))!;
}

/** Whether a requested resource names exactly this server's MCP endpoint. */
export function isOwnResource(requested: URL | string, origin: string): boolean {
  return canonicalResource(requested) === mcpResourceOf(origin);
}
