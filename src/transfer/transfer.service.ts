/**
 * Export and import for coding agents (docs/transfer.md). Export: a readable
 * blueprint as files. Import: files as a new blueprint owned by the caller; when the front matter names a
 * blueprint the caller may read, the import is a fork of it (lineage, `forked_from`, a version-1 `changes`
 * that says what the files changed). A blueprint the caller may not read is treated as no provenance at
 * all, exactly like an id that does not exist, so an import reveals nothing (section 9).
 */
import { requireViewer } from '../auth/auth.service';
import { Visibility, type Blueprint } from '../blueprints/blueprint.entity';
import { latestVersionNumber, versionSnapshot } from '../blueprints/blueprint-version.service';
import { getBlueprint, insertBlueprint } from '../blueprints/blueprint.service';
import { recordForks } from '../lineage/fork.service';
import { diffPlans } from '../plans/algebra';
import type { RequestContext } from '../platform/context';
import { invalid, invalidAll, validationFailed } from '../platform/errors';
import { assertValid, issuesFrom, validatorFor } from '../platform/json-schema';
import { moduleToWire, stepToWire } from '../plans/plan';
import { moduleSchema, stepSchema } from '../plans/plan.schema';
import { planDiffToWire } from '../versions/version.wire';
import { importInput } from './transfer.contract';
import { exportFormats, FileError, parseImport, renderExport, type ExportFile, type ExportFormat } from './transfer.format';

export function parseFormat(raw: unknown, path = 'format'): ExportFormat {
  if (typeof raw === 'string' && (exportFormats as readonly string[]).includes(raw)) return raw as ExportFormat;
  throw invalid(path, `must be one of ${exportFormats.join(', ')}`, `${path} must be one of ${exportFormats.join(', ')}`);
}

/** `{format, files}` of a blueprint the caller may read (others: 404). */
export async function exportBlueprint(ctx: RequestContext, idOrSlug: string, rawFormat: unknown): Promise<{ format: ExportFormat; files: ExportFile[] }> {
  requireViewer(ctx);
  const format = parseFormat(rawFormat);
  const bp = await getBlueprint(ctx, idOrSlug);
  const version = await latestVersionNumber(ctx.em, bp.id);
  return {
    format,
    files: renderExport(format, { id: bp.id, slug: bp.slug, version, name: bp.name, description: bp.description, tags: bp.tags, plan: bp.plan }),
  };
}

export interface ImportInput {
  format: ExportFormat;
  files: ExportFile[];
  name?: string;
  description?: string;
  tags?: string[];
  visibility?: Visibility;
}

/** The source the front matter names, if the caller may read it; anything else is no provenance. */
async function readableSource(ctx: RequestContext, id: string | null, slug: string | null): Promise<Blueprint | null> {
  for (const ref of [id, slug]) {
    if (!ref) continue;
    try {
      return await getBlueprint(ctx, ref);
    } catch (err) {
      // Not found, or not readable: the same for the caller. Anything else (the database) is not "no source".
      if ((err as { code?: string }).code !== 'NOT_FOUND') throw err;
    }
  }
  return null;
}

/** Files as a new blueprint of the caller's (201 body), or a fork with provenance of a readable source. */
export async function importBlueprint(ctx: RequestContext, rawInput: unknown): Promise<Blueprint> {
  const viewer = requireViewer(ctx);
  const input = assertValid<ImportInput>(validatorFor(importInput), rawInput ?? null, '');
  if (input.format !== 'cursor-rules' && input.files.length !== 1)
    throw invalid('files', `must hold exactly one file for ${input.format}`, `files must hold exactly one file for ${input.format}`);
  let parsed;
  try {
    parsed = parseImport(input.format, input.files);
  } catch (err) {
    if (!(err instanceof FileError)) throw err;
    const index = input.files.findIndex((f) => f.path === err.file);
    throw validationFailed(err.message, { file: err.file, line: err.line, issues: [{ path: `files/${index}/content`, message: err.message }] });
  }
  // The wire shape of every module and step (the JSON format carries them as written), before the plan rules.
  const [validModule, validStep] = [validatorFor(moduleSchema), validatorFor(stepSchema)];
  const issues = [
    ...parsed.plan.modules.flatMap((m, i) => (validModule(moduleToWire(m)) ? [] : issuesFrom(validModule.errors, `modules/${i}`))),
    ...parsed.plan.steps.flatMap((st, i) => (validStep(stepToWire(st)) ? [] : issuesFrom(validStep.errors, `steps/${i}`))),
  ];
  if (issues.length > 0) throw invalidAll(issues);
  const source = await readableSource(ctx, parsed.id, parsed.slug);
  const visibility = input.visibility ?? Visibility.PRIVATE;
  // A public import of a source others may not read keeps the link in lineage (access-checked on every
  // read) and nothing of the source anywhere else: not its id, name or the diff against its plan (whose
  // removed keys and changed fields are the source's, not the import's).
  const hidesSource = source !== null && visibility === Visibility.PUBLIC && source.visibility !== Visibility.PUBLIC;
  const bp = await ctx.em.transactional(async (tx) => {
    const changes: Record<string, unknown> = { imported_from: input.format, files: input.files.map((f) => f.path) };
    if (source) {
      const latest = await latestVersionNumber(tx, source.id);
      const named = parsed.version !== null && parsed.version >= 1 && parsed.version <= latest ? parsed.version : latest;
      changes.parent_version = named;
      if (!hidesSource) {
        const base = (await versionSnapshot(tx, source.id, named)) ?? source.plan;
        Object.assign(changes, { forked_from: source.id, ...planDiffToWire(diffPlans(base, parsed.plan)) });
      }
    }
    const fallbackName = hidesSource ? null : source?.name;
    const created = await insertBlueprint(
      tx,
      ctx,
      viewer.principalId,
      {
        name: (input.name ?? parsed.name ?? fallbackName ?? 'Imported blueprint').trim().slice(0, 200) || 'Imported blueprint',
        description: input.description ?? parsed.description ?? '',
        tags: input.tags ?? parsed.tags ?? [],
        visibility,
        plan: parsed.plan,
      },
      'import',
      changes,
    );
    if (source) await recordForks(tx, ctx, source.id, [created], viewer.principalId);
    else await tx.flush();
    return created;
  });
  ctx.loaders.clear();
  return bp;
}
