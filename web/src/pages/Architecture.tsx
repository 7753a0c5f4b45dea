import { Alert, Badge, Grid, Group, SegmentedControl, Select, Stack, Text, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useParams } from 'react-router-dom';
import { useMutation, useQuery, useSubscription } from 'urql';
import { errorText } from '../client';
import { useUrlState } from '../url-state';
import { Failure, Loading, NotFound, plural, usePageTitle } from '../components/Status';
import { ArchitectureEditor } from '../components/ArchitectureEditor';
import { EcosystemCanvas } from '../components/EcosystemCanvas';
import { ModuleGraph } from '../components/ModuleGraph';
import { Swimlanes } from '../components/Swimlanes';
import {
  AddArchitectureEdgeDocument,
  ArchitectureChangedDocument,
  ArchitectureModuleDetailDocument,
  ArchitectureNodeModulesDocument,
  ArchitecturePageDocument,
  RemoveArchitectureEdgeDocument,
  RemoveArchitectureNodeDocument,
  UpdateArchitectureLayoutDocument,
  type ArchitectureFieldsFragment,
} from '../generated/graphql';

type Zoom = 'ecosystem' | 'architecture' | 'module';
const ZOOMS: Zoom[] = ['ecosystem', 'architecture', 'module'];

function ArchitectureLevel({ slug, nodeId, onOpenModule }: { slug: string; nodeId: string; onOpenModule(key: string): void }) {
  const [{ data, error }] = useQuery({ query: ArchitectureNodeModulesDocument, variables: { slug, nodeId }, requestPolicy: 'cache-and-network' });
  if (error) return <Failure error={error} />;
  const node = data?.architecture?.node;
  if (!data) return <Loading what="modules" />;
  if (!node) return <Alert color="yellow">That node is gone.</Alert>;
  if (node.redacted) return <Alert color="gray">This blueprint is private to you.</Alert>;
  return (
    <Stack gap="xs">
      <Text size="sm" c="dimmed">
        {node.card?.name}: {plural(node.modules.length, 'module')}. Select a module to see its steps.
      </Text>
      <ModuleGraph node={node} onOpenModule={onOpenModule} />
    </Stack>
  );
}

function ModuleLevel({ slug, nodeId, moduleKey }: { slug: string; nodeId: string; moduleKey: string }) {
  const [{ data, error }] = useQuery({
    query: ArchitectureModuleDetailDocument,
    variables: { slug, nodeId, key: moduleKey },
    requestPolicy: 'cache-and-network',
  });
  if (error) return <Failure error={error} />;
  if (!data) return <Loading what="steps" />;
  const detail = data.architecture?.node?.module;
  if (!detail) return <Alert color="yellow">No such module.</Alert>;
  return <Swimlanes detail={detail} />;
}

function ModulePicker({ slug, nodeId, value, onChange }: { slug: string; nodeId: string; value: string | null; onChange(key: string): void }) {
  const [{ data }] = useQuery({ query: ArchitectureNodeModulesDocument, variables: { slug, nodeId }, requestPolicy: 'cache-and-network' });
  const modules = data?.architecture?.node?.modules ?? [];
  useEffect(() => {
    if (!value && modules[0]) onChange(modules[0].key);
  }, [value, modules, onChange]);
  return (
    <Select
      label="Module"
      data={modules.map((m) => ({ value: m.key, label: m.name }))}
      value={value}
      onChange={(v) => v && onChange(v)}
      allowDeselect={false}
      w={240}
    />
  );
}

export function ArchitecturePage() {
  const { slug = '' } = useParams();
  const [{ data, error }, reread] = useQuery({ query: ArchitecturePageDocument, variables: { slug }, requestPolicy: 'cache-and-network' });
  const [live] = useSubscription({ query: ArchitectureChangedDocument, variables: { slug } });
  const [arch, setArch] = useState<ArchitectureFieldsFragment | null>(null);
  const [lastChange, setLastChange] = useState<string | null>(null);
  // Zoom level, selected node and module live in the URL (?zoom=&node=&module=): a link shares the view,
  // and Back steps out of a zoom level instead of leaving the architecture.
  const [params, updateParams] = useUrlState();
  const zoom: Zoom = ZOOMS.includes(params.get('zoom') as Zoom) ? (params.get('zoom') as Zoom) : 'ecosystem';
  const nodeId = params.get('node');
  const moduleKey = params.get('module');
  const go = (next: { zoom?: Zoom; node?: string | null; module?: string | null }) => updateParams(next);
  const setZoom = (z: Zoom) => go({ zoom: z });
  const [layoutState, updateLayout] = useMutation(UpdateArchitectureLayoutDocument);
  const [edgeState, addEdge] = useMutation(AddArchitectureEdgeDocument);
  const [, removeNode] = useMutation(RemoveArchitectureNodeDocument);
  const [, removeEdge] = useMutation(RemoveArchitectureEdgeDocument);
  usePageTitle(arch?.name ?? (data && !data.architecture ? 'Not found' : 'Architecture'));

  useEffect(() => {
    if (data?.architecture) setArch(data.architecture);
  }, [data]);
  useEffect(() => {
    const change = live.data?.architectureChanged;
    if (!change) return;
    setArch(change.architecture);
    setLastChange(`${change.kind.toLowerCase().replace('_', ' ')} by ${change.actor?.name ?? 'someone'}`);
  }, [live.data]);

  if (error) return <Failure error={error} />;
  if (data && !data.architecture) return <NotFound what="architecture" />;
  if (!arch) return <Loading what="architecture" />;

  const readable = arch.nodes.filter((n) => !n.redacted);
  const selectedNode = nodeId && arch.nodes.some((n) => n.id === nodeId) ? nodeId : (readable[0]?.id ?? null);
  const openNode = (id: string) => {
    go({ zoom: 'architecture', node: id, module: null });
  };

  return (
    <Stack>
      <Group justify="space-between" wrap="wrap">
        <div>
          <Title order={2}>{arch.name}</Title>
          <Text size="sm" c="dimmed">
            {arch.visibility.toLowerCase()} · by {arch.owner.name} · {plural(arch.nodes.length, 'blueprint')} · {plural(arch.edges.length, 'edge')}
            {!arch.viewerCanEdit && ' · read only'}
          </Text>
          {arch.description && <Text size="sm">{arch.description}</Text>}
          {arch.nodes.length === 0 && (
            <Text size="sm" mt={4} data-testid="empty-architecture">
              {arch.viewerCanEdit
                ? 'Nothing here yet: find a blueprint under “Find a blueprint” and add it; edges follow once two are on the canvas.'
                : 'This architecture holds no blueprints yet.'}
            </Text>
          )}
        </div>
        <Group gap="xs" aria-live="polite">
          <Badge color={live.error ? 'red' : 'teal'} variant="dot">
            {live.error ? 'not live' : 'live'}
          </Badge>
          {lastChange && (
            <Text size="xs" c="dimmed" data-testid="last-change">
              {lastChange}
            </Text>
          )}
        </Group>
      </Group>
      <Group align="end" wrap="wrap">
        <div>
          <Text size="sm" fw={500} id="zoom-label" mb={2}>
            Zoom level
          </Text>
          <SegmentedControl
            aria-labelledby="zoom-label"
            value={zoom}
            onChange={(v) => setZoom(v as Zoom)}
            data={[
              { value: 'ecosystem', label: '1 Ecosystem' },
              { value: 'architecture', label: '2 Architecture' },
              { value: 'module', label: '3 Module' },
            ]}
          />
        </div>
        {zoom !== 'ecosystem' && (
          <Select
            label="Blueprint"
            data={readable.map((n) => ({ value: n.id, label: n.card ? `${n.card.name} by ${n.card.owner.name}` : n.id }))}
            value={selectedNode}
            onChange={(v) => {
              go({ node: v, module: null });
            }}
            allowDeselect={false}
            w={240}
          />
        )}
        {zoom === 'module' && selectedNode && <ModulePicker slug={slug} nodeId={selectedNode} value={moduleKey} onChange={(key) => go({ module: key })} />}
      </Group>
      {layoutState.error && <Alert color="red">{errorText(layoutState.error)}</Alert>}
      {edgeState.error && <Alert color="red">{errorText(edgeState.error)}</Alert>}
      {zoom === 'ecosystem' && (
        <Grid>
          <Grid.Col span={{ base: 12, md: 8 }}>
            <EcosystemCanvas
              arch={arch}
              onMove={(layout) => void updateLayout({ slug, layout })}
              onConnect={(source, target) => void addEdge({ slug, input: { sourceNodeId: source, targetNodeId: target, edgeType: 'API_CALL' } })}
              onDeleteNodes={(ids) => ids.forEach((id) => void removeNode({ slug, nodeId: id }))}
              onDeleteEdges={(ids) => ids.forEach((id) => void removeEdge({ slug, edgeId: id }))}
              onOpenNode={openNode}
            />
            <Text size="xs" c="dimmed" mt={4}>
              {arch.viewerCanEdit ? 'Drag a blueprint (or select it and use the arrow keys) to move it; double-click' : 'Double-click'} a blueprint to see its
              modules. Dashed edges are lineage, computed from forks and breeds.
            </Text>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 4 }}>
            <ArchitectureEditor arch={arch} onChanged={() => reread({ requestPolicy: 'network-only' })} />
          </Grid.Col>
        </Grid>
      )}
      {zoom === 'architecture' &&
        (selectedNode ? (
          <ArchitectureLevel
            slug={slug}
            nodeId={selectedNode}
            onOpenModule={(key) => {
              go({ zoom: 'module', node: selectedNode, module: key });
            }}
          />
        ) : (
          <Text c="dimmed">Add a blueprint first.</Text>
        ))}
      {zoom === 'module' && selectedNode && moduleKey && <ModuleLevel slug={slug} nodeId={selectedNode} moduleKey={moduleKey} />}
      {zoom === 'module' && !selectedNode && <Text c="dimmed">Add a blueprint first.</Text>}
    </Stack>
  );
}
