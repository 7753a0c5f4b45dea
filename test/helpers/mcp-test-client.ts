import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** One tool call's outcome: the JSON body of its text content, and whether it was a tool error. */
export interface McpAnswer<T = any> {
  isError: boolean;
  body: T;
  structured: unknown;
}

/** The official SDK client, connected to `/mcp` with a pasted bearer token. */
export class McpTestClient {
  private constructor(readonly client: Client) {}

  static async connect(baseUrl: string, token: string): Promise<McpTestClient> {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    // Lists once so the client knows each tool's outputSchema and validates every answer against it.
    await client.listTools();
    return new McpTestClient(client);
  }

  async call<T = any>(name: string, args: Record<string, unknown> = {}): Promise<McpAnswer<T>> {
    const result = await this.client.callTool({ name, arguments: args });
    const content = result.content as Array<{ type: string; text: string }>;
    return { isError: result.isError === true, body: JSON.parse(content[0]!.text) as T, structured: result.structuredContent };
  }

  /** A call expected to succeed: its body (throws with the error body otherwise). */
  async ok<T = any>(name: string, args: Record<string, unknown> = {}): Promise<T> {
    const answer = await this.call<T>(name, args);
    if (answer.isError) throw new Error(`${name}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
