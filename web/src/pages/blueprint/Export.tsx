/**
 * A blueprint as the instruction files coding agents read (`Blueprint.export(format)`), downloaded from the
 * browser. agents-md, claude-md and json are one file each; cursor-rules is one `.mdc` per module plus an
 * index, offered file by file and as "Download all" (one download per file, no archive: the import page
 * takes the same files back, several at once).
 */
import { Button, SegmentedControl, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { useQuery } from 'urql';
import { Failure, Loading, plural } from '../../components/Status';
import { BlueprintExportDocument, type ExportFormat } from '../../generated/graphql';

export const FORMATS: { value: ExportFormat; label: string; hint: string }[] = [
  { value: 'AGENTS_MD', label: 'AGENTS.md', hint: 'One AGENTS.md for agents that read it (Codex, Jules, Aider and others).' },
  { value: 'CLAUDE_MD', label: 'CLAUDE.md', hint: 'One CLAUDE.md for Claude Code.' },
  { value: 'CURSOR_RULES', label: 'Cursor rules', hint: 'One .cursor/rules/<module>.mdc per module, plus an index; put them in .cursor/rules/.' },
  { value: 'JSON', label: 'JSON', hint: 'The plan as blueprint.json.' },
];

/** The file's own name: a browser saves a download under a name, never a path. */
export const fileName = (path: string) => path.split('/').at(-1) || path;

/** Saves `content` as a file named after `path`'s last part. */
export function download(path: string, content: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: 'text/plain;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName(path);
  document.body.append(a);
  a.click();
  a.remove();
  // The download has taken the data by the next task; the object URL is then only memory.
  setTimeout(() => URL.revokeObjectURL(url));
}

export function Export({ id }: { id: string }) {
  const [format, setFormat] = useState<ExportFormat>('AGENTS_MD');
  const [{ data, error, fetching }] = useQuery({ query: BlueprintExportDocument, variables: { id, format }, requestPolicy: 'network-only' });
  const files = data?.blueprint?.export.format === format ? data.blueprint.export.files : null;
  return (
    <Stack gap="sm">
      <Text size="sm">Download this blueprint as the instruction files a coding agent reads; the import page turns such files back into a blueprint.</Text>
      <div>
        <Text size="sm" fw={500} id="export-format-label">
          Format
        </Text>
        <SegmentedControl aria-labelledby="export-format-label" data={FORMATS} value={format} onChange={(v) => setFormat(v as ExportFormat)} />
        <Text size="xs" c="dimmed">
          {FORMATS.find((f) => f.value === format)!.hint}
        </Text>
      </div>
      {error ? (
        <Failure error={error} />
      ) : !files || fetching ? (
        <Loading what="export" />
      ) : (
        <>
          {files.length > 1 && (
            <Button
              style={{ alignSelf: 'start' }}
              onClick={() => {
                for (const f of files) download(f.path, f.content);
              }}
            >
              Download all {plural(files.length, 'file')}
            </Button>
          )}
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>File</Table.Th>
                <Table.Th>Lines</Table.Th>
                <Table.Th>
                  <span className="sr-only">Download</span>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {files.map((f) => (
                <Table.Tr key={f.path}>
                  <Table.Td>
                    <code>{f.path}</code>
                  </Table.Td>
                  <Table.Td>{f.content.split('\n').length}</Table.Td>
                  <Table.Td>
                    <Button size="compact-sm" variant={files.length > 1 ? 'default' : 'filled'} onClick={() => download(f.path, f.content)}>
                      Download {fileName(f.path)}
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </>
      )}
    </Stack>
  );
}
