import { GraphQLError, type ValidationContext, type ValidationRule } from 'graphql';
import { invalid, type AppError } from '../errors';

/**
 * The input gate: one check every transport passes through at its boundary (REST bodies, path params and
 * query strings, GraphQL variables and literals, WebSocket messages, MCP arguments), before any service,
 * SQL statement or recursive function sees the input. It refuses, as 400 VALIDATION_FAILED naming the path:
 * - a NUL character (PostgreSQL text cannot hold it) or a lone UTF-16 surrogate (it has no UTF-8 form) in
 *   any string or object key;
 * - JSON nested deeper than `jsonDepthMax`, measured on the raw text by a loop, before `JSON.parse`.
 * See docs/limits.md.
 */

/** Why a string is refused, or null when it is fine. */
export function badStringReason(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain a NUL character (\\u0000)';
  if (!(value as string & { isWellFormed(): boolean }).isWellFormed()) return 'must not contain a lone UTF-16 surrogate';
  return null;
}

/**
 * How deep the JSON text nests (arrays and objects), stopping as soon as it passes `max`: one pass over the
 * characters, no recursion, strings skipped. Returns true when the text is deeper than `max`.
 */
export function jsonDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** `where.a.b[3]`, for error paths. */
function pathOf(parent: string, key: string | number): string {
  return typeof key === 'number' ? `${parent}[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

/**
 * The first problem in an already parsed value (any JSON-like value: bodies, params, variables, MCP
 * arguments), or null. Walks with an explicit stack, so a deep value cannot overflow ours; deeper than
 * `maxDepth` is itself the problem.
 */
export function inputProblem(value: unknown, where: string, maxDepth: number): { path: string; message: string } | null {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: where, depth: 0 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value === 'string') {
      const reason = badStringReason(item.value);
      if (reason) return { path: item.path, message: reason };
      continue;
    }
    if (item.value === null || typeof item.value !== 'object') continue;
    if (item.depth >= maxDepth) return { path: item.path, message: `nests deeper than ${maxDepth} levels` };
    if (Array.isArray(item.value)) {
      item.value.forEach((v, i) => stack.push({ value: v, path: pathOf(item.path, i), depth: item.depth + 1 }));
      continue;
    }
    for (const [key, v] of Object.entries(item.value)) {
      const reason = badStringReason(key);
      if (reason) return { path: pathOf(item.path, key), message: `has a key that ${reason}` };
      stack.push({ value: v, path: pathOf(item.path, key), depth: item.depth + 1 });
    }
  }
  return null;
}

/** The gate as an error: VALIDATION_FAILED naming the path, or null when the value may pass. */
export function gateError(value: unknown, where: string, maxDepth: number): AppError | null {
  const problem = inputProblem(value, where, maxDepth);
  return problem ? invalid(problem.path, problem.message) : null;
}

/** GraphQL string literals (`"\u0000"` is a NUL once parsed) go through the same gate as variables. */
export function stringLiteralGate(): ValidationRule {
  return (context: ValidationContext) => ({
    StringValue(node) {
      const reason = badStringReason(node.value);
      if (reason) context.reportError(new GraphQLError(`A string literal ${reason}`, { nodes: [node], extensions: { code: 'VALIDATION_FAILED' } }));
    },
  });
}
