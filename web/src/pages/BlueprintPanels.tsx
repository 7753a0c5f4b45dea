/**
 * The panels of a blueprint page below its plan and lineage: versions, comparison with the parent,
 * broadcasts and the live activity feed.
 */
import { Alert, Anchor, Badge, Button, Card, Group, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { useMutation, useQuery, useSubscription } from 'urql';
import { errorText } from '../client';
import { Failure, Loading, plural } from '../components/Status';
import {
  BlueprintActivityDocument,
  BlueprintVersionsDocument,
  CompareWithParentDocument,
  SendBroadcastDocument,
  type BlueprintActivitySubscription,
  type BroadcastSeverity,
  type BroadcastType,
} from '../generated/graphql';

type Activity = BlueprintActivitySubscription['blueprintActivity'];

export function Versions({ id }: { id: string }) {
  const [{ data, error }] = useQuery({ query: BlueprintVersionsDocument, variables: { id }, requestPolicy: 'cache-and-network' });
  if (error) return <Failure error={error} />;
  const versions = data?.blueprint?.versions;
  if (!versions) return <Loading what="versions" />;
  return (
    <Table.ScrollContainer minWidth={500}>
      <Table striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Version</Table.Th>
            <Table.Th>Cause</Table.Th>
            <Table.Th>Author</Table.Th>
            <Table.Th>When</Table.Th>
            <Table.Th>Sections</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {versions.edges.map(({ node: v }) => (
            <Table.Tr key={v.id}>
              <Table.Td>{v.number}</Table.Td>
              <Table.Td>{v.cause}</Table.Td>
              <Table.Td>{v.author.name}</Table.Td>
              <Table.Td>{new Date(v.createdAt).toLocaleString()}</Table.Td>
              <Table.Td>{Array.isArray(v.changes.sectionsTouched) ? v.changes.sectionsTouched.join(', ') : ''}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export function Compare({ id }: { id: string }) {
  const [{ data, error }] = useQuery({ query: CompareWithParentDocument, variables: { id }, requestPolicy: 'cache-and-network' });
  if (error) return <Failure error={error} />;
  const c = data?.compareWithParent;
  if (!c) return <Loading what="comparison" />;
  const rows = [...c.modules.map((m) => ({ ...m, what: 'module' })), ...c.steps.map((s) => ({ ...s, what: 'step' }))];
  return (
    <Stack gap="xs">
      <Text component="div">
        Against{' '}
        <Anchor component={Link} to={`/blueprints/${c.parent.slug}`}>
          {c.parent.name}
        </Anchor>
        : <Badge data-testid="compare-status">{c.status.toLowerCase()}</Badge> (forked at its version {c.baseVersion ?? '?'}, now {c.parentVersion ?? '?'})
      </Text>
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          No module or step differs.
        </Text>
      ) : (
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Key</Table.Th>
              <Table.Th>This fork</Table.Th>
              <Table.Th>Parent</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((r) => (
              <Table.Tr key={`${r.what}:${r.key}`}>
                <Table.Td>
                  {r.what} {r.key} {r.conflict && <Badge color="red">conflict</Badge>}
                </Table.Td>
                <Table.Td>{r.ahead ? `${r.ahead.change.toLowerCase()} ${r.ahead.fields.join(', ')}` : '–'}</Table.Td>
                <Table.Td>{r.behind ? `${r.behind.change.toLowerCase()} ${r.behind.fields.join(', ')}` : '–'}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}

export function BroadcastForm({ id }: { id: string }) {
  const [message, setMessage] = useState('');
  const [type, setType] = useState<BroadcastType>('NOTICE');
  const [severity, setSeverity] = useState<BroadcastSeverity>('INFO');
  const [sent, send] = useMutation(SendBroadcastDocument);
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        const r = await send({ blueprintId: id, message, type, severity });
        if (r.data) setMessage('');
      }}
    >
      <Group align="end" wrap="wrap">
        <TextInput
          label="Broadcast to forkers and subscribers"
          value={message}
          onChange={(e) => setMessage(e.currentTarget.value)}
          required
          style={{ flex: '1 1 240px' }}
        />
        <Select
          label="Type"
          data={['CHANGELOG', 'NOTICE', 'SECURITY', 'DEPRECATION']}
          value={type}
          onChange={(v) => v && setType(v as BroadcastType)}
          w={150}
          allowDeselect={false}
        />
        <Select
          label="Severity"
          data={['INFO', 'MINOR', 'BREAKING', 'CRITICAL']}
          value={severity}
          onChange={(v) => v && setSeverity(v as BroadcastSeverity)}
          w={130}
          allowDeselect={false}
        />
        <Button type="submit" loading={sent.fetching}>
          Send
        </Button>
      </Group>
      {sent.data && (
        <Text size="sm" className="status-ok" role="status">
          Sent to {plural(sent.data.sendBroadcast.recipientCount ?? 0, 'inbox', 'inboxes')}.
        </Text>
      )}
      {sent.error && <Alert color="red">{errorText(sent.error)}</Alert>}
    </form>
  );
}

function activityText(a: Activity): string {
  const who = a.actor?.name ?? 'someone';
  switch (a.kind) {
    case 'FORKED':
      return `${who} forked it${a.fork ? ` as ${a.fork.name}` : ''}`;
    case 'STARRED':
      return `${who} starred it`;
    case 'UNSTARRED':
      return `${who} removed a star`;
    case 'VERSION':
      return `version ${a.versionNumber ?? ''} by ${who}`;
    case 'CHANGELOG':
      return `${who} published “${a.changelogEntry?.title ?? ''}”`;
    case 'EDITED':
      return `${who} edited its details`;
    case 'DELETED':
      return `${who} deleted it`;
    default:
      return `${who}: ${String(a.kind).toLowerCase()}`;
  }
}

/** Mounted once per blueprint (`key`), so a fork's page starts with an empty feed. Each event also refreshes the page's counts. */
export function ActivityFeed({ id, onActivity }: { id: string; onActivity?: () => void }) {
  const [feed, setFeed] = useState<(Activity & { at: string })[]>([]);
  const [{ data }] = useSubscription({ query: BlueprintActivityDocument, variables: { id } });
  useEffect(() => {
    if (!data) return;
    setFeed((f) => [{ ...data.blueprintActivity, at: new Date().toLocaleTimeString() }, ...f].slice(0, 50));
    onActivity?.();
  }, [data, onActivity]);
  return (
    <Card withBorder component="section" aria-labelledby="activity-title">
      <Title order={3} size="h5" id="activity-title">
        Live activity
      </Title>
      <ul aria-live="polite" data-testid="activity-feed" style={{ margin: 0, paddingLeft: 18 }}>
        {feed.length === 0 && (
          <Text size="sm" c="dimmed" component="li" style={{ listStyle: 'none', marginLeft: -18 }}>
            Nothing yet; forks, stars, versions and changelog entries appear here as they happen.
          </Text>
        )}
        {feed.map((a, i) => (
          <Text component="li" size="sm" key={`${a.kind}-${a.subjectId}-${i}`}>
            {a.at}: {activityText(a)}
          </Text>
        ))}
      </ul>
    </Card>
  );
}
