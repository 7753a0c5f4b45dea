import { Alert, Anchor, Badge, Button, Card, Group, List, Loader, Select, Stack, Table, Tabs, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { useMutation, useQuery, useSubscription } from 'urql';
import { useAuth } from '../auth';
import { errorText } from '../client';
import { LineageGraph } from '../components/LineageGraph';
import {
  BlueprintActivityDocument,
  BlueprintLineageDocument,
  BlueprintPageDocument,
  BlueprintReviewsDocument,
  ReviewBlueprintDocument,
  BlueprintVersionsDocument,
  CompareWithParentDocument,
  ForkBlueprintDocument,
  SendBroadcastDocument,
  StarBlueprintDocument,
  SubscribeToBlueprintDocument,
  UnstarBlueprintDocument,
  UnsubscribeFromBlueprintDocument,
  type BlueprintActivitySubscription,
  type BlueprintPageQuery,
  type BroadcastSeverity,
  type BroadcastType,
} from '../generated/graphql';
import { percent, Rating } from './Registry';

type BP = NonNullable<BlueprintPageQuery['blueprint']>;
type Activity = BlueprintActivitySubscription['blueprintActivity'];

function Plan({ bp }: { bp: BP }) {
  return (
    <Stack gap="sm">
      {bp.modules.map((m) => {
        const steps = bp.steps.filter((s) => s.moduleKey === m.key);
        return (
          <Card key={m.key} withBorder component="section" aria-labelledby={`m-${m.key}`}>
            <Group gap="xs">
              <Title order={4} id={`m-${m.key}`}>
                {m.name}
              </Title>
              <Badge variant="light">{m.kind}</Badge>
              <Text size="xs" c="dimmed">
                {m.key}
              </Text>
            </Group>
            <Text size="sm">{m.summary}</Text>
            {m.dependsOn.length > 0 && (
              <Text size="sm" c="dimmed">
                Depends on: {m.dependsOn.join(', ')}
              </Text>
            )}
            <List type="ordered" size="sm" mt="xs">
              {steps.map((s) => (
                <List.Item key={s.key}>
                  <Text span fw={500} size="sm">
                    {s.title}
                  </Text>
                  {s.acceptance.length > 0 && (
                    <Text size="xs" c="dimmed">
                      Accept: {s.acceptance.join('; ')}
                    </Text>
                  )}
                </List.Item>
              ))}
            </List>
          </Card>
        );
      })}
    </Stack>
  );
}

function Lineage({ id }: { id: string }) {
  const [{ data, error }] = useQuery({ query: BlueprintLineageDocument, variables: { id, depth: 10 }, requestPolicy: 'cache-and-network' });
  if (error) return <Alert color="red">{errorText(error)}</Alert>;
  if (!data?.blueprint) return <Loader aria-label="Loading lineage" />;
  const lineage = data.blueprint.lineage;
  return (
    <Stack gap="xs">
      <Text size="sm" c="dimmed">
        {lineage.nodes.length} blueprints in this family; ancestors above, descendants below. Select one to open it.
      </Text>
      <LineageGraph lineage={lineage} currentId={id} />
    </Stack>
  );
}

function Versions({ id }: { id: string }) {
  const [{ data, error }] = useQuery({ query: BlueprintVersionsDocument, variables: { id }, requestPolicy: 'cache-and-network' });
  if (error) return <Alert color="red">{errorText(error)}</Alert>;
  const versions = data?.blueprint?.versions;
  if (!versions) return <Loader aria-label="Loading versions" />;
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

function Compare({ id }: { id: string }) {
  const [{ data, error }] = useQuery({ query: CompareWithParentDocument, variables: { id }, requestPolicy: 'cache-and-network' });
  if (error) return <Alert color="red">{errorText(error)}</Alert>;
  const c = data?.compareWithParent;
  if (!c) return <Loader aria-label="Loading comparison" />;
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

function Reviews({ id, canReview }: { id: string; canReview: boolean }) {
  const [{ data, error }, refetch] = useQuery({ query: BlueprintReviewsDocument, variables: { id }, requestPolicy: 'cache-and-network' });
  const [rating, setRating] = useState<string>('5');
  const [body, setBody] = useState('');
  const [sent, send] = useMutation(ReviewBlueprintDocument);
  if (error) return <Alert color="red">{errorText(error)}</Alert>;
  const b = data?.blueprint;
  if (!b) return <Loader aria-label="Loading reviews" />;
  return (
    <Stack gap="sm">
      <Text size="sm">{b.reviewCount === 0 ? 'No reviews yet.' : `Rated ${b.ratingAverage?.toFixed(1)} of 5 by ${b.reviewCount}.`}</Text>
      {canReview && (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            const r = await send({ blueprintId: id, rating: Number(rating), body });
            if (r.data) {
              setBody('');
              refetch({ requestPolicy: 'network-only' });
            }
          }}
        >
          <Group align="end" wrap="wrap">
            <Select label="Rating" data={['5', '4', '3', '2', '1']} value={rating} onChange={(v) => v && setRating(v)} allowDeselect={false} w={100} />
            <TextInput label="Review" value={body} onChange={(e) => setBody(e.currentTarget.value)} required style={{ flex: '1 1 240px' }} />
            <Button type="submit" loading={sent.fetching}>
              Post review
            </Button>
          </Group>
          {sent.error && <Alert color="red">{errorText(sent.error)}</Alert>}
        </form>
      )}
      {b.reviews.edges.map(({ node: r }) => (
        <Card key={r.id} withBorder>
          <Group gap="xs">
            <Badge color="yellow">{r.rating}/5</Badge>
            <Text size="sm" fw={500}>
              {r.reviewer.name}
            </Text>
            <Text size="xs" c="dimmed">
              {new Date(r.createdAt).toLocaleString()}
            </Text>
          </Group>
          <Text size="sm" mt={4}>
            {r.body}
          </Text>
        </Card>
      ))}
    </Stack>
  );
}

function BroadcastForm({ id }: { id: string }) {
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
        <Text size="sm" c="teal" role="status">
          Sent to {sent.data.sendBroadcast.recipientCount ?? 0} inboxes.
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

function ActivityFeed({ id }: { id: string }) {
  const [feed, setFeed] = useState<(Activity & { at: string })[]>([]);
  const [{ data }] = useSubscription({ query: BlueprintActivityDocument, variables: { id } });
  useEffect(() => {
    if (data) setFeed((f) => [{ ...data.blueprintActivity, at: new Date().toLocaleTimeString() }, ...f].slice(0, 50));
  }, [data]);
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

export function BlueprintPage() {
  const { slug = '' } = useParams();
  const { viewer } = useAuth();
  const navigate = useNavigate();
  const [{ data, fetching, error }] = useQuery({ query: BlueprintPageDocument, variables: { slug }, requestPolicy: 'cache-and-network' });
  const [forkState, fork] = useMutation(ForkBlueprintDocument);
  const [starState, star] = useMutation(StarBlueprintDocument);
  const [, unstar] = useMutation(UnstarBlueprintDocument);
  const [subState, subscribe] = useMutation(SubscribeToBlueprintDocument);
  const [, unsubscribe] = useMutation(UnsubscribeFromBlueprintDocument);
  const [subscribed, setSubscribed] = useState<boolean | null>(null);

  useEffect(() => setSubscribed(null), [slug]);
  if (error) return <Alert color="red">{errorText(error)}</Alert>;
  if (!data) return <Loader aria-label="Loading blueprint" />;
  const bp = data.blueprint;
  if (!bp) return <Alert color="yellow">No such blueprint, or it is private.</Alert>;
  const isOwner = viewer?.id === bp.owner.id;
  const isSubscribed = subscribed ?? bp.viewerIsSubscribed;

  return (
    <Stack>
      <Group justify="space-between" align="start" wrap="wrap">
        <div>
          <Title order={2}>{bp.name}</Title>
          <Text size="sm" c="dimmed">
            by {bp.owner.name} · {bp.visibility.toLowerCase()}
            {bp.forkedFrom && (
              <>
                {' '}
                · forked from{' '}
                <Anchor component={Link} to={`/blueprints/${bp.forkedFrom.slug}`}>
                  {bp.forkedFrom.name}
                </Anchor>
              </>
            )}
          </Text>
          <Text mt={4}>{bp.description}</Text>
          <Group gap="xs" mt="xs">
            <Badge variant="light" data-testid="star-count">
              ★ {bp.stars}
            </Badge>
            <Badge variant="outline" color="gray">
              {bp.forksCount} forks
            </Badge>
            <Badge variant="outline" color="gray">
              {bp.moduleCount} modules
            </Badge>
            <Badge variant="outline" color="gray">
              {bp.stepCount} steps
            </Badge>
            <Badge variant="outline" color="teal">
              success {percent(bp.successRate)}
            </Badge>
            <Rating average={bp.ratingAverage} count={bp.reviewCount} />
            {bp.tags.map((t) => (
              <Badge key={t} size="sm" variant="dot" color="gray">
                {t}
              </Badge>
            ))}
          </Group>
        </div>
        <Group gap="xs">
          <Button
            loading={forkState.fetching}
            onClick={async () => {
              const r = await fork({ id: bp.id });
              if (r.data) navigate(`/blueprints/${r.data.forkBlueprint.slug}`);
            }}
          >
            Fork
          </Button>
          <Button
            variant="default"
            loading={starState.fetching}
            aria-pressed={bp.viewerHasStarred}
            onClick={() => (bp.viewerHasStarred ? unstar({ id: bp.id }) : star({ id: bp.id }))}
          >
            {bp.viewerHasStarred ? 'Unstar' : 'Star'}
          </Button>
          {!isOwner && (
            <Button
              variant="default"
              loading={subState.fetching}
              aria-pressed={isSubscribed}
              onClick={async () => {
                const r = isSubscribed ? await unsubscribe({ id: bp.id }) : await subscribe({ id: bp.id });
                const s = r.data && ('subscribeToBlueprint' in r.data ? r.data.subscribeToBlueprint : r.data.unsubscribeFromBlueprint);
                if (s) setSubscribed(s.subscribed);
              }}
            >
              {isSubscribed ? 'Unsubscribe' : 'Subscribe'}
            </Button>
          )}
        </Group>
      </Group>
      {forkState.error && <Alert color="red">{errorText(forkState.error)}</Alert>}
      {fetching && (
        <Text size="xs" c="dimmed">
          Refreshing…
        </Text>
      )}
      <ActivityFeed id={bp.id} />
      {isOwner && <BroadcastForm id={bp.id} />}
      <Tabs key={bp.id} defaultValue="plan" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="plan">Plan</Tabs.Tab>
          <Tabs.Tab value="lineage">Lineage</Tabs.Tab>
          <Tabs.Tab value="forks">Forks ({bp.forks.totalCount})</Tabs.Tab>
          <Tabs.Tab value="changelog">Changelog ({bp.changelog.totalCount})</Tabs.Tab>
          <Tabs.Tab value="reviews">Reviews ({bp.reviewCount})</Tabs.Tab>
          {bp.forkedFrom && <Tabs.Tab value="compare">Compare with parent</Tabs.Tab>}
          {isOwner && <Tabs.Tab value="versions">Versions</Tabs.Tab>}
        </Tabs.List>
        <Tabs.Panel value="plan" pt="md">
          <Plan bp={bp} />
        </Tabs.Panel>
        <Tabs.Panel value="lineage" pt="md">
          <Lineage id={bp.id} />
        </Tabs.Panel>
        <Tabs.Panel value="forks" pt="md">
          {bp.forks.edges.length === 0 ? (
            <Text c="dimmed">No public forks yet.</Text>
          ) : (
            <List>
              {bp.forks.edges.map(({ node: f }) => (
                <List.Item key={f.id}>
                  <Anchor component={Link} to={`/blueprints/${f.slug}`}>
                    {f.name}
                  </Anchor>{' '}
                  by {f.owner.name} · ★ {f.stars}
                </List.Item>
              ))}
            </List>
          )}
        </Tabs.Panel>
        <Tabs.Panel value="changelog" pt="md">
          {bp.changelog.edges.length === 0 ? (
            <Text c="dimmed">No changelog entries.</Text>
          ) : (
            <Stack>
              {bp.changelog.edges.map(({ node: c }) => (
                <Card key={c.id} withBorder>
                  <Title order={4}>{c.title}</Title>
                  <Text size="xs" c="dimmed">
                    {new Date(c.createdAt).toLocaleString()}
                  </Text>
                  <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                    {c.body}
                  </Text>
                </Card>
              ))}
            </Stack>
          )}
        </Tabs.Panel>
        <Tabs.Panel value="reviews" pt="md">
          <Reviews id={bp.id} canReview={!isOwner} />
        </Tabs.Panel>
        {bp.forkedFrom && (
          <Tabs.Panel value="compare" pt="md">
            <Compare id={bp.id} />
          </Tabs.Panel>
        )}
        {isOwner && (
          <Tabs.Panel value="versions" pt="md">
            <Versions id={bp.id} />
          </Tabs.Panel>
        )}
      </Tabs>
    </Stack>
  );
}
