import { Alert, Anchor, Badge, Button, Card, Group, List, Stack, Tabs, Text, Title } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { useMutation, useQuery } from 'urql';
import { useAuth } from '../auth';
import { errorText } from '../client';
import { Failure, Loading, NotFound, plural, usePageTitle } from '../components/Status';
import { tellOtherTabs, useOtherTabs, type TabMessage } from '../tabs';
import { LineageGraph } from '../components/LineageGraph';
import {
  BlueprintLineageDocument,
  BlueprintPageDocument,
  ForkBlueprintDocument,
  StarBlueprintDocument,
  SubscribeToBlueprintDocument,
  UnstarBlueprintDocument,
  UnsubscribeFromBlueprintDocument,
  type BlueprintPageQuery,
} from '../generated/graphql';
import { percent, Rating } from './Registry';
import { ActivityFeed, BroadcastForm, Compare, Versions } from './BlueprintPanels';
import { Changelog } from './blueprint/Changelog';
import { EditDetails } from './blueprint/EditDetails';
import { Export } from './blueprint/Export';
import { Reviews } from './blueprint/Reviews';
import { Runs } from './blueprint/Runs';
import { PlanEditor } from '../plan-editor/PlanEditor';
import { ProposalsTab, ProposeToParent } from './proposals/ProposalsTab';
import { EDITOR_ROLES, MANAGER_ROLES } from '../roles';

type BP = NonNullable<BlueprintPageQuery['blueprint']>;

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
  if (error) return <Failure error={error} />;
  if (!data?.blueprint) return <Loading what="lineage" />;
  const lineage = data.blueprint.lineage;
  return (
    <Stack gap="xs">
      <Text size="sm" c="dimmed">
        {plural(lineage.nodes.length, 'blueprint')} in this family; ancestors above, descendants below. Select one to open it.
      </Text>
      <LineageGraph lineage={lineage} currentId={id} />
    </Stack>
  );
}

export function BlueprintPage() {
  const { slug = '' } = useParams();
  const { viewer } = useAuth();
  const navigate = useNavigate();
  const [{ data, fetching, error }, reexecute] = useQuery({ query: BlueprintPageDocument, variables: { slug }, requestPolicy: 'cache-and-network' });
  // Counts and the Star button follow what happens elsewhere: live activity, and stars given in another tab.
  const refresh = useCallback(() => reexecute({ requestPolicy: 'network-only' }), [reexecute]);
  useOtherTabs(
    useCallback(
      (m: TabMessage) => {
        if (m.kind === 'blueprint-changed' && m.id === data?.blueprint?.id) refresh();
      },
      [data?.blueprint?.id, refresh],
    ),
  );
  const [forkState, fork] = useMutation(ForkBlueprintDocument);
  const [starState, star] = useMutation(StarBlueprintDocument);
  const [, unstar] = useMutation(UnstarBlueprintDocument);
  const [subState, subscribe] = useMutation(SubscribeToBlueprintDocument);
  const [, unsubscribe] = useMutation(UnsubscribeFromBlueprintDocument);
  const [subscribed, setSubscribed] = useState<boolean | null>(null);

  useEffect(() => setSubscribed(null), [slug]);
  usePageTitle(data?.blueprint?.name ?? (data ? 'Not found' : 'Blueprint'));
  if (error) return <Failure error={error} />;
  if (!data) return <Loading what="blueprint" />;
  const bp = data.blueprint;
  if (!bp) return <NotFound what="blueprint" />;
  const isOwner = viewer?.id === bp.owner.id;
  const isSubscribed = subscribed ?? bp.viewerIsSubscribed;
  const role = bp.team?.viewerRole ?? '';
  const canEdit = isOwner || EDITOR_ROLES.includes(role);
  const canDelete = isOwner || MANAGER_ROLES.includes(role);

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
              {plural(bp.forksCount, 'fork')}
            </Badge>
            <Badge variant="outline" color="gray">
              {plural(bp.moduleCount, 'module')}
            </Badge>
            <Badge variant="outline" color="gray">
              {plural(bp.stepCount, 'step')}
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
            onClick={async () => {
              const r = bp.viewerHasStarred ? await unstar({ id: bp.id }) : await star({ id: bp.id });
              if (!r.error) tellOtherTabs({ kind: 'blueprint-changed', id: bp.id });
            }}
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
      <ActivityFeed key={`activity-${bp.id}`} id={bp.id} onActivity={refresh} />
      {isOwner && <BroadcastForm id={bp.id} />}
      {canEdit && bp.forkedFrom && <ProposeToParent sourceId={bp.id} parent={bp.forkedFrom} />}
      <Tabs key={bp.id} defaultValue="plan" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="plan">Plan</Tabs.Tab>
          <Tabs.Tab value="lineage">Lineage</Tabs.Tab>
          <Tabs.Tab value="forks">Forks ({bp.forks.totalCount})</Tabs.Tab>
          <Tabs.Tab value="changelog">Changelog ({bp.changelog.totalCount})</Tabs.Tab>
          <Tabs.Tab value="reviews">Reviews ({bp.reviewCount})</Tabs.Tab>
          <Tabs.Tab value="runs">Runs</Tabs.Tab>
          <Tabs.Tab value="export">Export</Tabs.Tab>
          {bp.forkedFrom && <Tabs.Tab value="compare">Compare with parent</Tabs.Tab>}
          {isOwner && <Tabs.Tab value="versions">Versions</Tabs.Tab>}
          <Tabs.Tab value="proposals">Proposals</Tabs.Tab>
          {canEdit && <Tabs.Tab value="edit">Edit plan</Tabs.Tab>}
          {canEdit && <Tabs.Tab value="details">Edit details</Tabs.Tab>}
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
          <Changelog id={bp.id} entries={bp.changelog.edges.map((e) => e.node)} canPublish={isOwner} onPublished={refresh} />
        </Tabs.Panel>
        <Tabs.Panel value="reviews" pt="md">
          <Reviews id={bp.id} canReview={!isOwner} onChanged={refresh} />
        </Tabs.Panel>
        <Tabs.Panel value="runs" pt="md">
          <Runs id={bp.id} seesAll={canEdit} />
        </Tabs.Panel>
        <Tabs.Panel value="export" pt="md">
          <Export id={bp.id} />
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
        <Tabs.Panel value="proposals" pt="md">
          <ProposalsTab id={bp.id} slug={bp.slug} />
        </Tabs.Panel>
        {canEdit && (
          <Tabs.Panel value="edit" pt="md">
            <PlanEditor id={bp.id} />
          </Tabs.Panel>
        )}
        {canEdit && (
          <Tabs.Panel value="details" pt="md">
            <EditDetails key={bp.id} bp={bp} canDelete={canDelete} onSaved={refresh} />
          </Tabs.Panel>
        )}
      </Tabs>
    </Stack>
  );
}
