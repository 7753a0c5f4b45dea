/**
 * JSON helpers for the free-form plan sections (`configuration`, `designSystem`). Plain objects are
 * merged and diffed key by key; anything else (strings, numbers, booleans, null, arrays) is a leaf,
 * because merging two arrays element by element rarely means what either author meant.
 */
import type { JsonObject } from './plan';

/** True for a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object's own value for `key`; never an inherited one such as `constructor`. */
export function own(obj: JsonObject | undefined, key: string): unknown {
  return obj !== undefined && Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

/** Sets an own property, safely even for the key `__proto__` (which JSON.parse can produce). */
export function setOwn(obj: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Structural equality of JSON values; object key order is ignored, array order is not. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => deepEqual(item, b[i]));
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/**
 * A deep copy, so that callers may edit what the algebra returns without touching its inputs.
 * Hand-written rather than `structuredClone`, which under jest's VM builds objects of another realm.
 */
export function cloneJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  if (isJsonObject(value)) {
    const copy: JsonObject = {};
    for (const [k, v] of Object.entries(value)) setOwn(copy, k, cloneJson(v));
    return copy as T;
  }
  return value;
}

/**
 * Appends `key` to a dotted JSON path: `theme.colors.primary`. Keys that are not identifier-like
 * (dots, spaces, leading digits) use bracket form, `theme["font.size"]`, so a path is never ambiguous.
 */
export function jsonPath(parent: string, key: string): string {
  if (/^[A-Za-z_$][\w$-]*$/.test(key)) return parent ? `${parent}.${key}` : key;
  return `${parent}[${JSON.stringify(key)}]`;
}

/**
 * The keys of a path built by {@link jsonPath} (`theme.colors["x.y"]` -> `['theme', 'colors', 'x.y']`),
 * or null when the text is not such a path. The inverse of `jsonPath`: a bracketed key is a JSON string,
 * read up to its closing quote (escapes included), so a key may hold `"]` or a dot.
 */
export function parseJsonPath(path: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === '[') {
      if (path[i + 1] !== '"') return null;
      let j = i + 2;
      while (j < path.length && path[j] !== '"') j += path[j] === '\\' ? 2 : 1;
      if (path[j + 1] !== ']') return null;
      try {
        out.push(JSON.parse(path.slice(i + 1, j + 1)) as string);
      } catch {
        return null;
      }
      i = j + 2;
    } else {
      if (out.length > 0) {
        if (path[i] !== '.') return null;
        i++;
      }
      const m = /^[A-Za-z_$][\w$-]*/.exec(path.slice(i));
      if (!m) return null;
      out.push(m[0]);
      i += m[0].length;
    }
  }
  return out.length > 0 ? out : null;
}

/** A copy of `section` with the value at `path` (a {@link jsonPath}) replaced, or removed when undefined. */
export function setJsonPath(section: JsonObject, path: string, value: unknown): JsonObject {
  const segments = parseJsonPath(path);
  const root = cloneJson(section);
  if (!segments) return root;
  let node: JsonObject = root;
  for (const segment of segments.slice(0, -1)) {
    const next = own(node, segment);
    if (!isJsonObject(next)) {
      const fresh: JsonObject = {};
      setOwn(node, segment, fresh);
      node = fresh;
    } else node = next;
  }
  const last = segments[segments.length - 1]!;
  if (value === undefined) delete node[last];
  else setOwn(node, last, cloneJson(value));
  return root;
}

/** Joins two paths built by {@link jsonPath}: `concatPath('theme', 'colors.primary')`. */
export function concatPath(prefix: string, sub: string): string {
  if (prefix === '' || sub === '') return prefix + sub;
  return sub.startsWith('[') ? `${prefix}${sub}` : `${prefix}.${sub}`;
}

/** True when `path` is `prefix` itself or lies under it. */
export function pathWithin(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`);
}

/** Keys of several objects in order of first appearance (first object's order, then newcomers). */
export function unionKeys(objects: readonly (JsonObject | undefined)[]): string[] {
  const seen = new Set<string>();
  for (const o of objects) if (o) for (const k of Object.keys(o)) seen.add(k);
  return [...seen];
}

/** One input's value at a conflicting path; `source` is the input's index. */
export interface JsonVariant {
  source: number;
  value: unknown;
}

/** A path where the inputs of an n-way merge disagree; the first variant is the one kept. */
export interface JsonMergeConflict {
  path: string;
  variants: JsonVariant[];
}

/**
 * Deep n-way merge where the first input that holds a leaf wins. Objects are merged key by key; a
 * path where inputs hold different values (or an object against a leaf) is reported once, at the
 * highest path where they disagree, with every input's value.
 */
export function mergeJsonFirstWins(objects: readonly JsonObject[]): { value: JsonObject; conflicts: JsonMergeConflict[] } {
  const conflicts: JsonMergeConflict[] = [];
  const merge = (values: readonly unknown[], path: string): unknown => {
    const present = values.map((value, source) => ({ source, value })).filter((v) => v.value !== undefined);
    const first = present[0]!;
    if (present.every((v) => isJsonObject(v.value))) {
      const objs = present.map((v) => v.value as JsonObject);
      const out: JsonObject = {};
      for (const key of unionKeys(objs)) {
        setOwn(
          out,
          key,
          merge(
            values.map((v) => (isJsonObject(v) ? own(v, key) : undefined)),
            jsonPath(path, key),
          ),
        );
      }
      return out;
    }
    if (present.some((v) => !deepEqual(v.value, first.value))) {
      conflicts.push({ path, variants: present.map((v) => ({ source: v.source, value: cloneJson(v.value) })) });
    }
    return cloneJson(first.value);
  };
  if (objects.length === 0) return { value: {}, conflicts };
  return { value: merge(objects, '') as JsonObject, conflicts };
}

/**
 * The part every input agrees on: keys present in all inputs with equal values. Where all inputs
 * hold objects that differ, the intersection recurses; an object that ends up empty only because
 * its contents disagree is left out.
 */
export function intersectJson(objects: readonly JsonObject[]): JsonObject {
  if (objects.length === 0) return {};
  const intersect = (values: readonly JsonObject[]): JsonObject => {
    const out: JsonObject = {};
    for (const key of Object.keys(values[0]!)) {
      if (!values.every((v) => Object.prototype.hasOwnProperty.call(v, key))) continue;
      const here = values.map((v) => own(v, key));
      if (here.every((v) => deepEqual(v, here[0]))) setOwn(out, key, cloneJson(here[0]));
      else if (here.every(isJsonObject)) {
        const inner = intersect(here as JsonObject[]);
        if (Object.keys(inner).length > 0) setOwn(out, key, inner);
      }
    }
    return out;
  };
  return intersect(objects);
}

/** Paths that differ between two JSON objects, each at the highest level where they differ. */
export interface JsonDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

/**
 * Compares two JSON objects. A key present on one side only is one `added`/`removed` path (its
 * sub-keys are not listed); objects on both sides are compared key by key; any other difference is
 * one `changed` path. Keys are visited in sorted order so that `diffJson(a, b)` and `diffJson(b, a)`
 * list the same paths with `added` and `removed` swapped.
 */
export function diffJson(before: JsonObject, after: JsonObject): JsonDiff {
  const diff: JsonDiff = { added: [], removed: [], changed: [] };
  const walk = (b: JsonObject, a: JsonObject, path: string) => {
    for (const key of unionKeys([b, a]).sort()) {
      const p = jsonPath(path, key);
      const inB = Object.prototype.hasOwnProperty.call(b, key);
      const inA = Object.prototype.hasOwnProperty.call(a, key);
      if (!inB) diff.added.push(p);
      else if (!inA) diff.removed.push(p);
      else {
        const [vb, va] = [b[key], a[key]];
        if (isJsonObject(vb) && isJsonObject(va)) walk(vb, va, p);
        else if (!deepEqual(vb, va)) diff.changed.push(p);
      }
    }
  };
  walk(before, after, '');
  return diff;
}
