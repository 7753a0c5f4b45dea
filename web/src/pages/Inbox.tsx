import { Anchor, Badge, Button, Card, Group, SegmentedControl, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { useMutation, useQuery } from 'urql';
import { Failure, Loading, usePageTitle } from '../components/Status';
import { InboxDocument, MarkInboxReadDocument, type InboxEntryFragment } from '../generated/graphql';
import { useInboxLive } from '../inbox-live';
import { tellOtherTabs } from '../tabs';

const SEVERITY_COLOR = { INFO: 'gray', MINOR: 'blue', BREAKING: 'orange', CRITICAL: 'red' } as const;

function Item({ item, onRead }: { item: InboxEntryFragment; onRead(id: string): void }) {
  const b = item.broadcast;
  return (
    <Card
      withBorder
      component="article"
      data-testid="inbox-item"
      data-unread={item.readAt ? 'false' : 'true'}
      // Unread items are marked by a bar at the side, not a tinted background: outline badges and links on
      // the tint miss the 4.5:1 contrast ratio.
      style={item.readAt ? undefined : { borderLeft: '4px solid var(--mantine-color-indigo-6)' }}
    >
      <Group justify="space-between" wrap="wrap">
        <Group gap="xs">
          <Badge color={SEVERITY_COLOR[b.severity]}>{b.severity.toLowerCase()}</Badge>
          <Badge variant="outline">{b.type.toLowerCase()}</Badge>
          {b.sourceBlueprint && (
            <Anchor component={Link} to={`/blueprints/${b.sourceBlueprint.slug}`} size="sm">
              {b.sourceBlueprint.name}
            </Anchor>
          )}
          {b.sourceBlueprint && (
            <Text span size="xs" c="dimmed">
              by {b.sourceBlueprint.owner.name}
            </Text>
          )}
        </Group>
        <Text size="xs" c="dimmed">
          {new Date(b.createdAt).toLocaleString()}
        </Text>
      </Group>
      <Text mt="xs">{b.message}</Text>
      {!item.readAt && (
        <Button size="compact-xs" variant="subtle" mt="xs" onClick={() => onRead(item.id)} aria-label={`Mark “${b.message}” read`}>
          Mark read
        </Button>
      )}
    </Card>
  );
}

export function InboxPage() {
  usePageTitle('Inbox');
  const [filter, setFilter] = useState<'all' | 'unread'>('all');
  const [{ data, error }] = useQuery({
    query: InboxDocument,
    variables: { first: 50, unread: filter === 'unread' || null },
    requestPolicy: 'cache-and-network',
  });
  const { arrived, refreshUnread } = useInboxLive();
  const [, markRead] = useMutation(MarkInboxReadDocument);
  const [readIds, setReadIds] = useState<Set<string>>(new Set());

  const listed = data?.inbox.edges.map((e) => e.node) ?? [];
  const known = new Set(listed.map((i) => i.id));
  const items = [...arrived.filter((i) => !known.has(i.id)), ...listed]
    .map((i) => (readIds.has(i.id) && !i.readAt ? { ...i, readAt: new Date().toISOString() } : i))
    .filter((i) => filter === 'all' || !i.readAt);

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Inbox</Title>
        <SegmentedControl
          aria-label="Show"
          data={[
            { value: 'all', label: 'All' },
            { value: 'unread', label: 'Unread' },
          ]}
          value={filter}
          onChange={(v) => setFilter(v as 'all' | 'unread')}
        />
      </Group>
      <Text size="sm" c="dimmed">
        Broadcasts from the owners of blueprints you forked or subscribed to. New ones appear here as they are sent.
      </Text>
      {error && <Failure error={error} />}
      {!data && !error && <Loading what="inbox" />}
      <Stack gap="xs" aria-live="polite" data-testid="inbox-list">
        {data && items.length === 0 && (
          <Text c="dimmed">
            {filter === 'unread' ? 'No unread broadcasts.' : 'No broadcasts yet. Fork a blueprint or subscribe to one to hear from its owner here.'}
          </Text>
        )}
        {items.map((i) => (
          <Item
            key={i.id}
            item={i}
            onRead={async (id) => {
              const r = await markRead({ id });
              if (r.data) {
                setReadIds((s) => new Set(s).add(id));
                refreshUnread();
                tellOtherTabs({ kind: 'inbox-read' });
              }
            }}
          />
        ))}
      </Stack>
    </Stack>
  );
}
