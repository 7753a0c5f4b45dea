/** How the bad-input table (bad-input.test.ts) sends its raw rows and judges every answer. */
import { request as httpRequest } from 'node:http';
import { DOCUMENTED_ERROR_CODES } from '../../helpers/error-codes';

/** An answer as the table judges it. */
export interface Answer {
  status: number;
  body: unknown;
}

export type Row = { name: string; send: () => Promise<Answer> };

/** The documented error codes (docs/api.md, "Errors"). */
const CODES = new Set<string>(DOCUMENTED_ERROR_CODES);

/**
 * A console page route (`/:page`, `/*`) answering a path that names no page: the console's own not-found
 * page, HTML with status 404 (docs/web.md), is the documented answer there, not an API error body.
 */
export function consoleNotFoundPage(rowName: string, answer: Answer): boolean {
  return /^GET \/(:page|\*) /.test(rowName) && answer.status === 404 && typeof answer.body === 'string' && /^<!doctype html>/i.test(answer.body);
}

/** Why an answer breaks the contract, or null. */
export function verdict(answer: Answer): string | null {
  const text = JSON.stringify(answer.body) ?? '';
  if (answer.status >= 500) return `status ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`;
  if (/"INTERNAL"/.test(text)) return 'INTERNAL';
  if (/\b(select|insert|update|delete)\b[^"]{0,40}\b(from|into|set|where)\b/i.test(text)) return 'SQL in the answer';
  if (/\bat \S+ \(|\.ts:\d+|\.js:\d+/.test(text)) return 'a stack in the answer';
  const body = answer.body as any;
  if (body?.jsonrpc) {
    // MCP: a tool result carries the section 5 body when it is an error
    if (body.result?.isError) {
      const inner = JSON.parse(body.result.content[0].text);
      return CODES.has(inner?.error?.code) ? null : `MCP error body ${body.result.content[0].text.slice(0, 80)}`;
    }
    return body.result || body.error ? null : 'MCP answer without result';
  }
  if (answer.status >= 400) {
    const codes: string[] = body?.error ? [body.error.code] : Array.isArray(body?.errors) ? body.errors.map((e: any) => e.extensions?.code) : [];
    if (codes.length === 0 || codes.some((c) => !CODES.has(c))) return `4xx not in the documented shape: ${text.slice(0, 120)}`;
  }
  for (const e of Array.isArray(body?.errors) ? body.errors : [])
    if (!CODES.has(e.extensions?.code)) return `GraphQL error without a documented code: ${JSON.stringify(e).slice(0, 120)}`;
  return null;
}

/** One request as raw HTTP (Node's client, no body parsing in the way): its status and body, JSON when it parses. */
export function rawHttp(base: string, method: string, path: string, headers: Record<string, string>, body?: string | Buffer): () => Promise<Answer> {
  return () =>
    new Promise((resolve) => {
      const url = new URL(base);
      const length = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
      const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers: { ...length, ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // HTML or text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      });
      // A reset socket is an answer too (status 0), and a failure of the row.
      req.on('error', (err) => resolve({ status: 0, body: String(err) }));
      if (body !== undefined) req.end(body);
      else req.end();
    });
}

/** An OAuth answer breaks the contract on a 5xx, a stack or SQL; its 4xx may be OAuth's or section 5's shape. */
export function oauthVerdict(answer: Answer): string | null {
  const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  if (answer.status >= 500 || answer.status === 0) return `status ${answer.status} ${text.slice(0, 200)}`;
  if (/\bat \S+ \(|\.ts:\d+|\.js:\d+/.test(text)) return 'a stack in the answer';
  if (/\b(select|insert|update|delete)\b[^"]{0,40}\b(from|into|set|where)\b/i.test(text)) return 'SQL in the answer';
  const body = answer.body as any;
  if (answer.status >= 400 && typeof body === 'object' && body !== null) {
    const oauthShape = typeof body.error === 'string';
    const ourShape = typeof body.error?.code === 'string' && CODES.has(body.error.code);
    if (!oauthShape && !ourShape) return `4xx in no documented shape: ${text.slice(0, 120)}`;
  }
  return null;
}
