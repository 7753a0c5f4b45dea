/**
 * `/import`: instruction files from the person's disk become a blueprint (`importBlueprint`). The format is
 * guessed from the files' names and can be changed; a file the service cannot read is named with its line.
 * Files exported from a blueprint the person may read come back as a fork of it.
 */
import { Alert, Button, Card, Group, List, SegmentedControl, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useMutation } from 'urql';
import { usePageTitle } from '../components/Status';
import { errorText } from '../errors';
import { ImportBlueprintDocument, type ExportFormat, type Visibility } from '../generated/graphql';
import { FORMATS } from './blueprint/Export';

interface Picked {
  path: string;
  content: string;
}

/** The format the files' names suggest: AGENTS.md, CLAUDE.md, *.mdc, *.json. */
export function guessFormat(names: string[]): ExportFormat | null {
  if (names.length === 0) return null;
  if (names.every((n) => n.endsWith('.mdc'))) return 'CURSOR_RULES';
  if (names.length > 1) return null;
  const n = names[0]!.toLowerCase();
  if (n === 'agents.md') return 'AGENTS_MD';
  if (n === 'claude.md') return 'CLAUDE_MD';
  if (n.endsWith('.json')) return 'JSON';
  return null;
}

/** A browser gives a file's name only; Cursor's rules live in `.cursor/rules/`, where the export put them. */
const pathOf = (name: string, format: ExportFormat) => (format === 'CURSOR_RULES' ? `.cursor/rules/${name}` : name);

export function ImportPage() {
  usePageTitle('Import a blueprint');
  const navigate = useNavigate();
  const [files, setFiles] = useState<Picked[]>([]);
  const [format, setFormat] = useState<ExportFormat | null>(null);
  const [name, setName] = useState('');
  const [visibility, setVisibility] = useState<Visibility>('PRIVATE');
  const [imported, importFiles] = useMutation(ImportBlueprintDocument);
  const [readError, setReadError] = useState<string | null>(null);

  return (
    <Stack maw={760}>
      <Title order={2}>Import a blueprint</Title>
      <Text>
        Choose the instruction files of a coding agent: one AGENTS.md, one CLAUDE.md, a blueprint.json, or all the .mdc files of a .cursor/rules folder. Files
        exported from a blueprint you can read come back as a fork of it.
      </Text>
      <Card withBorder>
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            if (!format) return;
            const input = {
              format,
              files: files.map((f) => ({ path: pathOf(f.path, format), content: f.content })),
              visibility,
              ...(name.trim() && { name: name.trim() }),
            };
            const r = await importFiles({ input });
            if (r.data) navigate(`/blueprints/${r.data.importBlueprint.slug}`);
          }}
        >
          <Stack gap="sm">
            <div>
              <Text component="label" htmlFor="import-files" size="sm" fw={500}>
                Files
              </Text>
              <input
                id="import-files"
                type="file"
                multiple
                accept=".md,.mdc,.json,text/markdown,application/json"
                style={{ display: 'block', marginTop: 4 }}
                onChange={async (e) => {
                  setReadError(null);
                  const chosen = Array.from(e.currentTarget.files ?? []);
                  try {
                    const read = await Promise.all(chosen.map(async (f) => ({ path: f.name, content: await f.text() })));
                    setFiles(read);
                    setFormat(guessFormat(read.map((f) => f.path)));
                  } catch {
                    setReadError('The browser could not read those files; choose them again.');
                  }
                }}
              />
            </div>
            {files.length > 0 && (
              <List size="sm" data-testid="import-files">
                {files.map((f) => (
                  <List.Item key={f.path}>
                    <code>{f.path}</code> ({f.content.split('\n').length} lines)
                  </List.Item>
                ))}
              </List>
            )}
            <div>
              <Text size="sm" fw={500} id="import-format-label">
                Format
              </Text>
              <SegmentedControl aria-labelledby="import-format-label" data={FORMATS} value={format ?? ''} onChange={(v) => setFormat(v as ExportFormat)} />
              {files.length > 0 && !format && (
                <Text size="xs" c="dimmed">
                  The files’ names do not say their format; choose it.
                </Text>
              )}
            </div>
            <TextInput label="Name" description="Leave empty to keep the name the files give" value={name} onChange={(e) => setName(e.currentTarget.value)} />
            <div>
              <Text size="sm" fw={500} id="import-visibility-label">
                Visibility
              </Text>
              <SegmentedControl
                aria-labelledby="import-visibility-label"
                data={[
                  { value: 'PRIVATE', label: 'Private' },
                  { value: 'PUBLIC', label: 'Public' },
                ]}
                value={visibility}
                onChange={(v) => setVisibility(v as Visibility)}
              />
            </div>
            <Group>
              <Button type="submit" disabled={files.length === 0 || !format} loading={imported.fetching}>
                Import
              </Button>
            </Group>
            {(readError || imported.error) && (
              <Alert color="red" role="alert">
                {readError ?? errorText(imported.error)}
              </Alert>
            )}
          </Stack>
        </form>
      </Card>
    </Stack>
  );
}
