import { Arg, Ctx, Field, FieldResolver, InputType, Mutation, ObjectType, Resolver, Root, registerEnumType } from 'type-graphql';
import { Blueprint, Visibility } from '../blueprints/blueprint.entity';
import type { BlueprintView } from '../blueprints/blueprint.view';
import type { RequestContext } from '../platform/context';
import { exportFormats, type ExportFormat } from './transfer.format';
import { exportBlueprint, importBlueprint } from './transfer.service';

/** GraphQL names of the formats: AGENTS_MD, CLAUDE_MD, CURSOR_RULES, JSON (values are the REST names). */
const ExportFormatEnum = Object.fromEntries(exportFormats.map((f) => [f.toUpperCase().replace('-', '_'), f])) as Record<string, ExportFormat>;
registerEnumType(ExportFormatEnum, { name: 'ExportFormat', description: 'AGENTS.md, CLAUDE.md, Cursor rules (.cursor/rules/*.mdc) or JSON.' });

@ObjectType('ExportFile', { simpleResolvers: true })
class ExportFileType {
  @Field(() => String) path!: string;
  @Field(() => String) content!: string;
}

@ObjectType('BlueprintExport', { simpleResolvers: true, description: 'A blueprint as the files coding agents read (GET /api/blueprints/:id/export).' })
class BlueprintExportType {
  @Field(() => ExportFormatEnum) format!: ExportFormat;
  @Field(() => [ExportFileType]) files!: ExportFileType[];
}

@InputType('ExportFileInput')
class ExportFileInput {
  @Field(() => String) path!: string;
  @Field(() => String) content!: string;
}

@InputType('ImportBlueprintInput')
class ImportBlueprintInput {
  @Field(() => ExportFormatEnum) format!: ExportFormat;
  @Field(() => [ExportFileInput]) files!: ExportFileInput[];
  @Field(() => String, { nullable: true }) name?: string;
  @Field(() => String, { nullable: true }) description?: string;
  @Field(() => [String], { nullable: true }) tags?: string[];
  @Field(() => Visibility, { nullable: true }) visibility?: Visibility;
}

@Resolver(() => Blueprint)
export class TransferResolver {
  @FieldResolver(() => BlueprintExportType, { description: 'This blueprint as the instruction files coding agents read.' })
  export(@Root() bp: BlueprintView, @Ctx() ctx: RequestContext, @Arg('format', () => ExportFormatEnum) format: ExportFormat): Promise<BlueprintExportType> {
    return exportBlueprint(ctx, bp.id, format);
  }

  @Mutation(() => Blueprint, { description: 'Files as a new blueprint of the caller (POST /api/blueprints/import); a fork when they name a readable one.' })
  importBlueprint(@Ctx() ctx: RequestContext, @Arg('input', () => ImportBlueprintInput) input: ImportBlueprintInput): Promise<Blueprint> {
    const body: Record<string, unknown> = { format: input.format, files: input.files.map((f) => ({ path: f.path, content: f.content })) };
    for (const k of ['name', 'description', 'tags', 'visibility'] as const) if (input[k] !== undefined && input[k] !== null) body[k] = input[k];
    return importBlueprint(ctx, body);
  }
}
