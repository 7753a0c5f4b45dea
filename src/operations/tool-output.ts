/**
 * What every NEW-output tool shares: the last "name, description, tags, visibility" step and the writer
 * of the new blueprint(s) with version 1, lineage links and module provenance.
 */
import { ref } from '@mikro-orm/core';
import { Blueprint, Visibility } from '../blueprints/blueprint.entity';
import { insertBlueprint, normaliseTags } from '../blueprints/blueprint.service';
import { recordForks } from '../lineage/fork.service';
import { LineageKind, LineageLink } from '../lineage/lineage-link.entity';
import { recordProvenance, type ModuleSource } from '../lineage/provenance.service';
import type { Plan } from '../plans/plan';
import type { JsonSchema } from '../platform/json-schema';
import type { ToolContext, ToolStep } from './tool-definition';
import { planOutline } from './plan-outline';
import { descriptionField, nameField } from '../platform/field-schemas';
import { tagsField, visibilityField } from '../blueprints/blueprint.contract';

/** The name, description, tags and visibility of a new blueprint. */
export interface Identity {
  name: string;
  description: string;
  tags: string[];
  visibility: Visibility;
}

/** Every field optional: a deterministic tool's agent may just confirm the server's defaults with `{}`. */
export const identitySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: nameField,
    description: descriptionField,
    tags: tagsField,
    visibility: visibilityField,
  },
};

/** The per-blueprint fields of {@link identitySchema}, for tools that name several outputs at once. */
export const identityProperties = (identitySchema as { properties: Record<string, JsonSchema> }).properties;

const maxNameLength = 200;

/** Private when any source is private, so a derivative never goes public unless the agent says so. */
export function defaultVisibility(sources: readonly Blueprint[]): Visibility {
  return sources.some((s) => s.visibility === Visibility.PRIVATE) ? Visibility.PRIVATE : Visibility.PUBLIC;
}

export function defaultTags(sources: readonly Blueprint[]): string[] {
  return normaliseTags(sources.flatMap((s) => s.tags)).slice(0, 20);
}

export function clampName(name: string): string {
  const trimmed = name.trim();
  return trimmed.length <= maxNameLength ? trimmed : `${trimmed.slice(0, maxNameLength - 1).trimEnd()}…`;
}

/** How a generated name or description refers to a source the public may not read. */
export const PRIVATE_SOURCE_LABEL = 'a private blueprint';

/**
 * The tool context as a result may speak of it: every private source's name, slug and description read as
 * {@link PRIVATE_SOURCE_LABEL} (the entity itself is untouched). A result's generated defaults are made
 * from this view whatever its visibility: a private result may be made public later, and its slug, made
 * from its name at creation, never changes. So a public thing made from a private one, now or later,
 * reveals nothing about it (as `forked_from` and lineage already do); the agent and the owner may still
 * name and describe it as they like.
 */
export function publicView<C extends { sources: readonly Blueprint[] }>(c: C): C {
  if (!c.sources.some((s) => s.visibility === Visibility.PRIVATE)) return c;
  const sources = c.sources.map((s) =>
    s.visibility === Visibility.PRIVATE
      ? (Object.create(s, {
          name: { value: PRIVATE_SOURCE_LABEL },
          slug: { value: 'private' },
          description: { value: '' },
        }) as Blueprint)
      : s,
  );
  return { ...c, sources };
}

/** A submission of {@link identitySchema} completed with the defaults (made from {@link publicView}). */
export function identityFrom(submitted: Partial<Identity>, defaults: Identity): Identity {
  return {
    name: clampName(submitted.name ?? defaults.name),
    description: submitted.description ?? defaults.description,
    tags: normaliseTags(submitted.tags ?? defaults.tags),
    visibility: submitted.visibility ?? defaults.visibility,
  };
}

export interface IdentityStepOptions<P, S> {
  /** What the result is; the prompt shows it with the result's outline. */
  summary(c: ToolContext<P, S>): string;
  /** The plan that will be written. */
  plan(c: ToolContext<P, S>): Plan;
  defaultName(c: ToolContext<P, S>): string;
  defaultDescription(c: ToolContext<P, S>): string;
}

/** Server defaults of the identity step (tags and visibility from the sources; text from {@link publicView}). */
export function identityDefaults<P, S>(c: ToolContext<P, S>, options: IdentityStepOptions<P, S>): Identity {
  const named = publicView(c);
  return {
    name: clampName(options.defaultName(named)),
    description: options.defaultDescription(named),
    tags: defaultTags(c.sources),
    visibility: defaultVisibility(c.sources),
  };
}

/**
 * The shared last step of single-output NEW tools: confirm the result, then name, describe, tag it and
 * choose its visibility. Every field may be left out to take the default the prompt shows.
 */
export function identityStep<P, S extends { identity?: Identity }>(options: IdentityStepOptions<P, S>): ToolStep<P, S> {
  return {
    title: 'Name and visibility',
    prompt: (c) => {
      const d = identityDefaults(c, options);
      return [
        options.summary(c),
        '',
        'The blueprint that will be written:',
        planOutline(options.plan(c), { json: true }),
        '',
        'Last step: name the new blueprint, describe it in a few sentences, tag it and choose its visibility (public: listed in the registry, forkable by anyone; private: only you and your teams). Any field left out takes its default:',
        `- name: ${JSON.stringify(d.name)}`,
        `- description: ${JSON.stringify(d.description)}`,
        `- tags: ${JSON.stringify(d.tags)}`,
        `- visibility: ${d.visibility}`,
        'Submit {} to accept all defaults.',
      ].join('\n');
    },
    submissionSchema: identitySchema,
    accept: (c, s: Partial<Identity>) => ({
      ...c.state,
      identity: identityFrom(s, identityDefaults(c, options)),
    }),
  };
}

/** One blueprint a NEW tool writes. */
export interface NewOutput {
  plan: Plan;
  identity: Identity;
  /** The source of each module, for tools that combine sources (breed, splice, weave, style_transfer). */
  provenance?: ModuleSource[];
  /** Tool-specific facts for the version-1 change metadata. */
  changes?: Record<string, unknown>;
}

/**
 * Writes the outputs of a NEW tool in the submission's transaction: each a blueprint owned by the
 * caller with version 1 (cause = tool type), linked to every source with the operation's id. One source
 * makes a fork (`forked_from` set, the source's fork count raised); two or more make a breed child.
 */
export async function writeNewBlueprints(c: ToolContext<unknown, unknown>, outputs: NewOutput[]): Promise<Blueprint[]> {
  const { tx, ctx, operation, sources } = c;
  const ownerId = operation.principal.id;
  const kind = sources.length === 1 ? LineageKind.FORK : LineageKind.BREED;
  const privateIds = new Set(sources.filter((s) => s.visibility === Visibility.PRIVATE).map((s) => s.id));
  const written: Blueprint[] = [];
  for (const out of outputs) {
    const changes = {
      operation_id: operation.id,
      [kind === LineageKind.FORK ? 'forked_from' : 'bred_from']: kind === LineageKind.FORK ? sources[0]!.id : sources.map((s) => s.id),
      modules_added: out.plan.modules.map((m) => m.key),
      steps_added: out.plan.steps.map((s) => s.key),
      ...out.changes,
    };
    // A public result's history names no private source (lineage links, access-checked on read, keep the family).
    const bp = await insertBlueprint(
      tx,
      ctx,
      ownerId,
      { ...out.identity, plan: out.plan },
      operation.toolType,
      out.identity.visibility === Visibility.PUBLIC ? withoutIds(changes, privateIds) : changes,
    );
    if (kind === LineageKind.BREED) {
      for (const source of sources) {
        tx.persist(new LineageLink(tx.getReference(Blueprint, source.id, { wrapped: true }), ref(bp), kind, operation.id));
      }
    }
    written.push(bp);
  }
  if (kind === LineageKind.FORK) await recordForks(tx, ctx, sources[0]!.id, written, ownerId, operation.id);
  else await tx.flush();
  for (const [i, out] of outputs.entries()) await recordProvenance(tx, written[i]!.id, operation.id, out.provenance ?? []);
  return written;
}

/**
 * `value` with every string equal to one of `ids` gone: dropped from arrays, null as an object's value.
 * Ids are UUIDs, so no ordinary text is touched.
 */
export function withoutIds<T>(value: T, ids: ReadonlySet<string>): T {
  if (ids.size === 0) return value;
  const scrub = (v: unknown): unknown => {
    if (typeof v === 'string') return ids.has(v) ? null : v;
    if (Array.isArray(v)) return v.filter((x) => !(typeof x === 'string' && ids.has(x))).map(scrub);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrub(x)]));
    return v;
  };
  return scrub(value) as T;
}

/** The result document of a NEW tool: `blueprint_ids` first, as every client reads it. */
export function newResult(blueprints: readonly Blueprint[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    blueprint_ids: blueprints.map((b) => b.id),
    blueprints: blueprints.map((b) => ({ id: b.id, slug: b.slug, name: b.name })),
    ...extra,
  };
}
