import { Anchor, Badge, Button, Card, Chip, Group, SegmentedControl, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { useQuery } from 'urql';
import { useUrlState } from '../url-state';
import { Failure, Loading, plural, usePageTitle } from '../components/Status';
import { RegistryDocument, type BlueprintCardFieldsFragment, type RegistrySort } from '../generated/graphql';

const PAGE_SIZE = 12;

export const percent = (rate: number | null | undefined) => (rate === null || rate === undefined ? '–' : `${Math.round(rate * 100)}%`);

export function Rating({ average, count }: { average: number | null | undefined; count: number }) {
  if (average === null || average === undefined || count === 0) return null;
  return (
    // Dark text on a filled yellow (autoContrast): yellow text on white misses the 4.5:1 contrast ratio.
    <Badge color="yellow.4" autoContrast aria-label={`rated ${average.toFixed(1)} of 5 by ${count}`}>
      {average.toFixed(1)}/5 ({count})
    </Badge>
  );
}

export function BlueprintCard({ b, extra }: { b: BlueprintCardFieldsFragment; extra?: ReactNode }) {
  return (
    <Card withBorder padding="md" component="article" aria-labelledby={`bp-${b.id}`} data-testid="blueprint-card">
      <Anchor component={Link} to={`/blueprints/${b.slug}`} fw={600} id={`bp-${b.id}`}>
        {b.name}
      </Anchor>
      <Group gap={6}>
        <Text size="xs" c="dimmed">
          by {b.owner.name}
        </Text>
        {extra}
      </Group>
      <Text size="sm" lineClamp={2} mt={4}>
        {b.description}
      </Text>
      <Group gap="xs" mt="sm">
        <Badge variant="light" aria-label={`${b.stars} stars`}>
          ★ {b.stars}
        </Badge>
        <Badge variant="outline" color="gray">
          {plural(b.moduleCount, 'module')}
        </Badge>
        <Badge variant="outline" color="gray">
          {plural(b.stepCount, 'step')}
        </Badge>
        <Badge variant="outline" color="teal">
          success {percent(b.successRate)}
        </Badge>
        <Rating average={b.ratingAverage} count={b.reviewCount} />
      </Group>
      {b.tags.length > 0 && (
        <Group gap={4} mt="xs">
          {b.tags.map((t) => (
            <Badge key={t} size="xs" variant="dot" color="gray">
              {t}
            </Badge>
          ))}
        </Group>
      )}
    </Card>
  );
}

const SORTS: { value: RegistrySort; label: string }[] = [
  { value: 'TRENDING', label: 'Trending' },
  { value: 'STARS', label: 'Stars' },
  { value: 'RECENT', label: 'Recent' },
  { value: 'RATING', label: 'Rating' },
];

export function RegistryPage() {
  usePageTitle('Registry');
  const [params, updateParams] = useUrlState();
  const [q, setQ] = useState(params.get('q') ?? '');
  const [debouncedQ] = useDebouncedValue(q, 300);
  const sort = (params.get('sort') as RegistrySort | null) ?? 'TRENDING';
  const tags = params.get('tags')?.split(',').filter(Boolean) ?? [];
  // Cursor of each page start, so "Previous" goes back without offsets.
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const page = cursors.length - 1;

  const setParam = (name: string, value: string | null) => {
    updateParams({ [name]: value }, { replace: true });
    setCursors([null]);
  };

  const [{ data, fetching, error }] = useQuery({
    query: RegistryDocument,
    variables: {
      q: debouncedQ || null,
      tags: tags.length ? tags : null,
      sort: debouncedQ && sort === 'TRENDING' ? 'RELEVANCE' : sort,
      first: PAGE_SIZE,
      after: cursors[page],
    },
  });
  const conn = data?.registry;
  const seenTags = [...new Set([...tags, ...(conn?.edges.flatMap((e) => e.node.tags) ?? [])])].slice(0, 20);
  const pages = conn ? Math.max(1, Math.ceil(conn.totalCount / PAGE_SIZE)) : 1;

  return (
    <Stack>
      <Title order={2}>Registry</Title>
      <Group align="end" wrap="wrap">
        <TextInput
          label="Search blueprints"
          placeholder="e.g. auth, payments, react"
          value={q}
          onChange={(e) => {
            setQ(e.currentTarget.value);
            setCursors([null]);
            setParam('q', e.currentTarget.value || null);
          }}
          style={{ flex: '1 1 240px' }}
        />
        <div>
          <Text size="sm" fw={500} id="sort-label" mb={2}>
            Sort by
          </Text>
          <SegmentedControl aria-labelledby="sort-label" data={SORTS} value={sort} onChange={(v) => setParam('sort', v)} />
        </div>
      </Group>
      {seenTags.length > 0 && (
        <Group gap="xs" role="group" aria-label="Filter by tag">
          {seenTags.map((t) => (
            <Chip
              key={t}
              size="xs"
              checked={tags.includes(t)}
              onChange={(on) => setParam('tags', (on ? [...tags, t] : tags.filter((x) => x !== t)).join(',') || null)}
            >
              {t}
            </Chip>
          ))}
        </Group>
      )}
      {error && <Failure error={error} />}
      {fetching && !conn && <Loading what="blueprints" />}
      {conn && (
        <>
          <Text size="sm" c="dimmed" aria-live="polite" data-testid="registry-total">
            {conn.totalCountExact ? plural(conn.totalCount, 'blueprint') : `${conn.totalCount}+ blueprints`}
          </Text>
          {conn.totalCount === 0 && (
            <Text data-testid="registry-empty">
              {debouncedQ || tags.length > 0 ? 'Nothing matches. Try fewer words, a shorter word or fewer tags.' : 'No public blueprints yet.'}
            </Text>
          )}
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} data-testid="registry-results">
            {conn.edges.map((e) => (
              <BlueprintCard key={e.node.id} b={e.node} />
            ))}
          </SimpleGrid>
          {pages > 1 && (
            <Group justify="center" component="nav" aria-label="Pages">
              <Button variant="default" disabled={page === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
                Previous
              </Button>
              <Text size="sm">
                Page {page + 1} of {pages}
              </Text>
              <Button variant="default" disabled={!conn.pageInfo.hasNextPage} onClick={() => setCursors((c) => [...c, conn.pageInfo.endCursor ?? null])}>
                Next
              </Button>
            </Group>
          )}
        </>
      )}
    </Stack>
  );
}
