import { Alert, Button, Card, CopyButton, Group, List, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { useClient, useMutation, useQuery } from 'urql';
import { errorText } from '../client';
import {
  AddArchitectureEdgeDocument,
  AddArchitectureNodeDocument,
  ArchitectureExportDocument,
  RegistryDocument,
  RemoveArchitectureEdgeDocument,
  RemoveArchitectureNodeDocument,
  type ArchitectureEdgeType,
  type ArchitectureExportFormat,
  type ArchitectureFieldsFragment,
} from '../generated/graphql';
import { edgeLabel } from './EcosystemCanvas';

/** The node's blueprint and its owner: forks often share their parent's name. */
const nodeName = (n: ArchitectureFieldsFragment['nodes'][number]) =>
  n.redacted ? `Private blueprint ${n.id.slice(0, 8)}` : n.card ? `${n.card.name} by ${n.card.owner.name}` : n.id;

function AddNode({ slug, onAdded }: { slug: string; onAdded: () => void }) {
  const [q, setQ] = useState('');
  const [debounced] = useDebouncedValue(q, 250);
  const [{ data }] = useQuery({ query: RegistryDocument, variables: { q: debounced || null, first: 5, sort: debounced ? 'RELEVANCE' : 'STARS' } });
  const [added, add] = useMutation(AddArchitectureNodeDocument);
  return (
    <Card withBorder component="section" aria-labelledby="add-node">
      <Title order={3} size="h6" id="add-node">
        Add a blueprint
      </Title>
      <TextInput label="Find a blueprint" value={q} onChange={(e) => setQ(e.currentTarget.value)} size="xs" />
      <List size="sm" mt="xs" listStyleType="none" spacing={4}>
        {data?.registry.edges.map(({ node: b }) => (
          <List.Item key={b.id}>
            <Group gap="xs" wrap="nowrap" justify="space-between">
              <Text size="sm" truncate>
                {b.name}{' '}
                <Text span size="xs" c="dimmed">
                  by {b.owner.name}
                </Text>
              </Text>
              <Button
                size="compact-xs"
                variant="light"
                aria-label={`Add ${b.name} by ${b.owner.name}`}
                onClick={() => void add({ slug, input: { blueprintId: b.id } }).then((r) => !r.error && onAdded())}
              >
                Add
              </Button>
            </Group>
          </List.Item>
        ))}
      </List>
      {added.error && <Alert color="red">{errorText(added.error)}</Alert>}
    </Card>
  );
}

const MANUAL_TYPES: { value: ArchitectureEdgeType; label: string }[] = [
  { value: 'API_CALL', label: 'API call' },
  { value: 'EVENT', label: 'Event' },
  { value: 'SHARED_DB', label: 'Shared database' },
  { value: 'AUTH', label: 'Auth' },
  { value: 'CUSTOM', label: 'Custom (label)' },
];

function AddEdge({ arch }: { arch: ArchitectureFieldsFragment }) {
  const options = arch.nodes.map((n) => ({ value: n.id, label: nodeName(n) }));
  const [source, setSource] = useState<string | null>(null);
  const [target, setTarget] = useState<string | null>(null);
  const [type, setType] = useState<ArchitectureEdgeType>('API_CALL');
  const [label, setLabel] = useState('');
  const [added, add] = useMutation(AddArchitectureEdgeDocument);
  return (
    <Card withBorder component="section" aria-labelledby="add-edge">
      <Title order={3} size="h6" id="add-edge">
        Add an edge
      </Title>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          if (!source || !target) return;
          const r = await add({ slug: arch.slug, input: { sourceNodeId: source, targetNodeId: target, edgeType: type, label: label || null } });
          // Cleared once added, so the next edge starts from an empty form.
          if (!r.error) {
            setSource(null);
            setTarget(null);
            setLabel('');
          }
        }}
      >
        <Stack gap={4}>
          <Select size="xs" label="From" data={options} value={source} onChange={setSource} />
          <Select size="xs" label="To" data={options} value={target} onChange={setTarget} />
          <Select
            size="xs"
            label="Edge type"
            data={MANUAL_TYPES}
            value={type}
            onChange={(v) => v && setType(v as ArchitectureEdgeType)}
            allowDeselect={false}
          />
          <TextInput size="xs" label="Label" value={label} onChange={(e) => setLabel(e.currentTarget.value)} required={type === 'CUSTOM'} />
          <Button size="xs" type="submit" disabled={!source || !target} loading={added.fetching}>
            Add edge
          </Button>
        </Stack>
      </form>
      {added.error && <Alert color="red">{errorText(added.error)}</Alert>}
    </Card>
  );
}

function Contents({ arch }: { arch: ArchitectureFieldsFragment }) {
  const [, removeNode] = useMutation(RemoveArchitectureNodeDocument);
  const [, removeEdge] = useMutation(RemoveArchitectureEdgeDocument);
  const byId = new Map(arch.nodes.map((n) => [n.id, n]));
  return (
    <Card withBorder component="section" aria-labelledby="contents">
      <Title order={3} size="h6" id="contents">
        Nodes and edges
      </Title>
      <List size="sm" listStyleType="none" spacing={4} data-testid="node-list">
        {arch.nodes.map((n) => (
          <List.Item key={n.id}>
            <Group gap="xs" wrap="nowrap" justify="space-between">
              <Text size="sm" truncate>
                {nodeName(n)}
              </Text>
              {arch.viewerCanEdit && (
                <Button
                  size="compact-xs"
                  color="red"
                  variant="subtle"
                  aria-label={`Remove node ${nodeName(n)}`}
                  onClick={() => removeNode({ slug: arch.slug, nodeId: n.id })}
                >
                  Remove
                </Button>
              )}
            </Group>
          </List.Item>
        ))}
      </List>
      <List size="sm" listStyleType="none" spacing={4} mt="xs" data-testid="edge-list">
        {arch.edges.map((e) => {
          const text = `${nodeName(byId.get(e.source)!)} → ${nodeName(byId.get(e.target)!)} (${edgeLabel(e)})`;
          return (
            <List.Item key={e.id}>
              <Group gap="xs" wrap="nowrap" justify="space-between">
                <Text size="sm" c={e.computed ? 'dimmed' : undefined}>
                  {text}
                </Text>
                {arch.viewerCanEdit && !e.computed && (
                  <Button
                    size="compact-xs"
                    color="red"
                    variant="subtle"
                    aria-label={`Remove edge ${text}`}
                    onClick={() => removeEdge({ slug: arch.slug, edgeId: e.id })}
                  >
                    Remove
                  </Button>
                )}
                {e.computed && (
                  <Text size="xs" c="dimmed">
                    lineage
                  </Text>
                )}
              </Group>
            </List.Item>
          );
        })}
      </List>
    </Card>
  );
}

function Export({ slug }: { slug: string }) {
  const client = useClient();
  const [text, setText] = useState<{ format: ArchitectureExportFormat; body: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async (format: ArchitectureExportFormat) => {
    const r = await client.query(ArchitectureExportDocument, { slug, format }, { requestPolicy: 'network-only' }).toPromise();
    if (r.error) setError(errorText(r.error));
    else if (r.data?.architecture) setText({ format, body: r.data.architecture.export });
  };
  const ext = { MERMAID: 'mmd', DOT: 'dot', JSON: 'json' } as const;
  return (
    <Card withBorder component="section" aria-labelledby="export">
      <Title order={3} size="h6" id="export">
        Export
      </Title>
      <Group gap="xs">
        <Button size="xs" variant="default" onClick={() => run('MERMAID')}>
          Mermaid
        </Button>
        <Button size="xs" variant="default" onClick={() => run('DOT')}>
          DOT
        </Button>
        <Button size="xs" variant="default" onClick={() => run('JSON')}>
          JSON
        </Button>
      </Group>
      {error && <Alert color="red">{error}</Alert>}
      {text && (
        <>
          <pre className="export" data-testid="export-text" aria-label={`${text.format} export`} tabIndex={0}>
            {text.body}
          </pre>
          <Group gap="xs">
            <CopyButton value={text.body}>
              {({ copied, copy }) => (
                <Button size="xs" variant="light" onClick={copy}>
                  {copied ? 'Copied' : 'Copy'}
                </Button>
              )}
            </CopyButton>
            <Button
              size="xs"
              variant="light"
              component="a"
              download={`${slug}.${ext[text.format]}`}
              href={`data:text/plain;charset=utf-8,${encodeURIComponent(text.body)}`}
            >
              Download
            </Button>
          </Group>
        </>
      )}
    </Card>
  );
}

/**
 * The side panel of the ecosystem level: add nodes and edges, list and remove them, export. `onChanged`
 * re-reads the architecture after one's own change, so it shows even if its live event comes late.
 */
export function ArchitectureEditor({ arch, onChanged }: { arch: ArchitectureFieldsFragment; onChanged: () => void }) {
  return (
    <Stack gap="sm">
      {arch.viewerCanEdit && <AddNode slug={arch.slug} onAdded={onChanged} />}
      {arch.viewerCanEdit && arch.nodes.length >= 2 && <AddEdge arch={arch} />}
      <Contents arch={arch} />
      <Export slug={arch.slug} />
    </Stack>
  );
}
