/**
 * Errors as sentences for people. The API's messages name input paths (`body/password must NOT have fewer
 * than 12 characters`); the console turns each issue into "Password must have at least 12 characters."
 */
type Issue = { path?: string; message?: string };
type ErrorLike = {
  graphQLErrors?: { message: string; extensions?: Record<string, unknown> }[];
  networkError?: Error;
  message: string;
  response?: unknown;
};

const FIELD_NAMES: Record<string, string> = { q: 'Search', tagsCsv: 'Tags', fromNodeId: 'From', toNodeId: 'To' };

/** `body/password` -> "Password"; `input/modules/0/key` -> "Key of module 1". */
export function fieldName(path: string): string {
  const parts = path.split('/').filter((p) => p && !['body', 'input', 'query', 'params', 'args'].includes(p));
  const last = parts.at(-1) ?? '';
  if (!last) return 'The value';
  // An item of a list: `tags/0` -> "Tag 1".
  if (/^\d+$/.test(last) && parts.length >= 2) return fieldName(`${parts.at(-2)!.replace(/s$/, '')}`) + ` ${Number(last) + 1}`;
  const named = FIELD_NAMES[last] ?? last.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_-]/g, ' ');
  const index = parts.length >= 3 && /^\d+$/.test(parts.at(-2)!) ? ` of ${parts.at(-3)!.replace(/s$/, '')} ${Number(parts.at(-2)) + 1}` : '';
  return named.charAt(0).toUpperCase() + named.slice(1).toLowerCase() + index;
}

/** One validator message in plain words. */
export function plainRule(message: string): string {
  let m;
  if ((m = /must NOT have fewer than (\d+) characters/.exec(message))) return `must have at least ${m[1]} characters`;
  if ((m = /must NOT have more than (\d+) characters/.exec(message))) return `must have at most ${m[1]} characters`;
  if ((m = /must NOT have fewer than (\d+) items/.exec(message))) return `needs at least ${m[1]}`;
  if ((m = /must NOT have more than (\d+) items/.exec(message))) return `can have at most ${m[1]}`;
  if (/must match pattern/.test(message)) return 'uses characters that are not allowed (letters, digits, dots, dashes and underscores are)';
  if (/must match format "email"/.test(message)) return 'must be an email address';
  if ((m = /must be (<=|>=) (\d+)/.exec(message))) return m[1] === '<=' ? `must be at most ${m[2]}` : `must be at least ${m[2]}`;
  if (/must be equal to one of the allowed values/.test(message)) return 'is not one of the allowed choices';
  if (/must have required property '([^']+)'/.test(message)) return 'is missing';
  return message.replace(/^must NOT/, 'must not');
}

/** A sentence: capitalised, one final full stop. */
export const sentence = (text: string) => {
  const t = text.trim();
  if (!t) return t;
  const s = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
};

/** True for a failure worth retrying: the service did not answer, or answered 5xx. */
export function isUnavailable(error: ErrorLike | undefined | null): boolean {
  if (!error) return false;
  const status = (error.response as { status?: number } | undefined)?.status;
  if (status !== undefined && status >= 500) return true;
  if (error.networkError && !error.graphQLErrors?.length) return true;
  return (error.graphQLErrors ?? []).some((e) => ['INTERNAL', 'UNAVAILABLE', 'INTERNAL_SERVER_ERROR'].includes(String(e.extensions?.code)));
}

export const UNAVAILABLE_TEXT = 'The service is not answering right now. Your work is kept; try again in a moment.';

/** The first error as a sentence a person can act on, or null when there is none. */
export function errorText(error: ErrorLike | undefined | null): string | null {
  if (!error) return null;
  if (isUnavailable(error)) return UNAVAILABLE_TEXT;
  const first = error.graphQLErrors?.[0];
  if (!first) return sentence(error.networkError?.message ?? error.message);
  const details = first.extensions?.details as { issues?: Issue[]; file?: unknown; line?: unknown } | undefined;
  // An imported file the service could not read names the file and the line ("AGENTS.md line 3: …").
  if (typeof details?.file === 'string' && typeof details.line === 'number')
    return sentence(`${details.file} could not be read at line ${details.line}: ${first.message.replace(/^.*? line \d+: /, '')}`);
  const issues = details?.issues?.filter((i) => i.path !== undefined && i.message) ?? [];
  if (issues.length > 0) return issues.map((i) => sentence(`${fieldName(i.path!)} ${plainRule(i.message!)}`)).join(' ');
  return sentence(plainRule(first.message.replace(/^(body|input|query|params|args)\/\S+/, (p) => fieldName(p))));
}
