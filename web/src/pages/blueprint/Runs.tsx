/**
 * A blueprint's runs as the viewer may see them (`Blueprint.executions`): every run for the owner and team
 * editors, only one's own runs for anyone else. The counters above are the blueprint's, for everyone.
 */
import { Badge, Button, Group, Stack, Table, Text } from '@mantine/core';
import { useState } from 'react';
import { useQuery } from 'urql';
import { Failure, Loading, plural } from '../../components/Status';
import { BlueprintRunsDocument, type ExecutionStatus } from '../../generated/graphql';
import { percent } from '../Registry';

const PAGE = 25;

// Dark shades on outline badges: the default ones (and teal and red up to 8) miss the 4.5:1 contrast ratio on white.
// Plain colours, so each scheme takes its own outline shade: app.css darkens them on the light background (4.5:1),
// and Mantine's dark-scheme outline shades are pale enough on the dark one (fixed dark shades were not).
const STATUS_COLOR: Record<ExecutionStatus, string> = { RUNNING: 'blue', COMPLETED: 'teal', FAILED: 'red', ABANDONED: 'gray' };

const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '–');

export function Runs({ id, seesAll }: { id: string; seesAll: boolean }) {
  const [pages, setPages] = useState<(string | null)[]>([null]);
  return (
    <Stack gap="sm">
      <Text size="sm" c="dimmed">
        {seesAll ? 'Every run of this blueprint, newest first.' : 'Your runs of this blueprint, newest first (others’ runs are theirs to see).'}
      </Text>
      {pages.map((after, i) => (
        <RunsPage
          key={after ?? 'first'}
          id={id}
          after={after}
          first={i === 0}
          onMore={i === pages.length - 1 ? (c) => setPages((p) => [...p, c]) : undefined}
        />
      ))}
    </Stack>
  );
}

function RunsPage({ id, after, first, onMore }: { id: string; after: string | null; first: boolean; onMore?: (cursor: string) => void }) {
  const [{ data, error }] = useQuery({ query: BlueprintRunsDocument, variables: { id, first: PAGE, after }, requestPolicy: 'cache-and-network' });
  if (error) return <Failure error={error} />;
  const b = data?.blueprint;
  if (!b) return <Loading what="runs" />;
  const s = b.executionStats;
  const runs = b.executions;
  return (
    <Stack gap="xs">
      {first && (
        <Group gap="xs" data-testid="run-stats">
          <Badge variant="outline" color={STATUS_COLOR.RUNNING}>
            {s.running} running
          </Badge>
          <Badge variant="outline" color={STATUS_COLOR.COMPLETED}>
            {s.completed} completed
          </Badge>
          <Badge variant="outline" color={STATUS_COLOR.FAILED}>
            {s.failed} failed
          </Badge>
          <Badge variant="outline" color={STATUS_COLOR.ABANDONED}>
            {s.abandoned} abandoned
          </Badge>
          <Badge variant="outline" color={STATUS_COLOR.COMPLETED}>
            success {percent(s.successRate)}
          </Badge>
        </Group>
      )}
      {first && runs.totalCount === 0 ? (
        <Text c="dimmed">No runs yet. A coding agent starts one with the blueprint_start tool (or GET /api/blueprints/:id/start).</Text>
      ) : (
        <Table.ScrollContainer minWidth={560}>
          <Table striped>
            {first && <Table.Caption>{plural(runs.totalCount, 'run')}</Table.Caption>}
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Status</Table.Th>
                <Table.Th>Run by</Table.Th>
                <Table.Th>Steps</Table.Th>
                <Table.Th>Started</Table.Th>
                <Table.Th>Ended</Table.Th>
                <Table.Th>Notes</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {runs.edges.map(({ node: r }) => (
                <Table.Tr key={r.id} data-testid="run-row">
                  <Table.Td>
                    <Badge color={STATUS_COLOR[r.status]} variant="outline">
                      {r.status.toLowerCase()}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{r.principal.name}</Table.Td>
                  <Table.Td>
                    {r.stepsReached} of {r.totalSteps}
                  </Table.Td>
                  <Table.Td>{when(r.startedAt)}</Table.Td>
                  <Table.Td>{when(r.endedAt)}</Table.Td>
                  <Table.Td>{r.notes ?? ''}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {onMore && runs.pageInfo.hasNextPage && runs.pageInfo.endCursor && (
        <Button variant="default" onClick={() => onMore(runs.pageInfo.endCursor!)} style={{ alignSelf: 'start' }}>
          Show older runs
        </Button>
      )}
    </Stack>
  );
}
