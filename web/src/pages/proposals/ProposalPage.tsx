import { Alert, Anchor, Badge, Button, Card, Code, Group, JsonInput, Radio, SimpleGrid, Stack, Text, Textarea, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { useMutation, useQuery } from 'urql';
import { useAuth } from '../../auth';
import { errorText } from '../../client';
import { Loading } from '../../components/Status';
import { EDITOR_ROLES } from '../../roles';
import {
  CloseProposalDocument,
  CommentOnProposalDocument,
  MergeProposalDocument,
  type ProposalConflictKind,
  ProposalPageDocument,
  type ProposalResolutionInput,
  type ProposalResolutionTake,
  ReopenProposalDocument,
  type ProposalPageQuery,
} from '../../generated/graphql';

type Proposal = NonNullable<NonNullable<ProposalPageQuery['blueprint']>['proposal']>;
type Item = { key: string } & Record<string, unknown>;

/** One module or step as text, one field per line, for the side-by-side view. */
function show(item: unknown): string {
  if (item === null || item === undefined) return '(absent)';
  if (typeof item !== 'object') return JSON.stringify(item);
  return Object.entries(item as Record<string, unknown>)
    .filter(([k]) => k !== '__typename')
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`)
    .join('\n');
}

function Side({ label, item }: { label: string; item: unknown }) {
  return (
    <div>
      <Text size="xs" fw={600} c="dimmed">
        {label}
      </Text>
      <Code block>{show(item)}</Code>
    </div>
  );
}

/** The per-module (and per-step) diff: what the target has now beside what the source proposes. */
function Changes({ p }: { p: Proposal }) {
  const byKey = (items: readonly Item[]) => new Map(items.map((i) => [i.key, i]));
  const rows = [
    ...p.changes.modules.map((c) => ({
      ...c,
      kind: 'module',
      ours: byKey(p.target.modules as Item[]).get(c.key),
      theirs: byKey(p.source.modules as Item[]).get(c.key),
    })),
    ...p.changes.steps.map((c) => ({
      ...c,
      kind: 'step',
      ours: byKey(p.target.steps as Item[]).get(c.key),
      theirs: byKey(p.source.steps as Item[]).get(c.key),
    })),
  ];
  const json = [...p.changes.configuration.added, ...p.changes.configuration.removed, ...p.changes.configuration.changed].length;
  const design = [...p.changes.designSystem.added, ...p.changes.designSystem.removed, ...p.changes.designSystem.changed].length;
  if (rows.length === 0 && json === 0 && design === 0) return <Text c="dimmed">The source has no changes to propose right now.</Text>;
  return (
    <Stack gap="sm">
      {rows.map((r) => (
        <Card key={`${r.kind}:${r.key}`} withBorder component="section" aria-label={`${r.kind} ${r.key}: ${r.change}`} data-testid="change">
          <Group gap="xs" mb={4}>
            {/* Shade 9 (teal, as green.9 is too light): white on the default shades misses the 4.5:1 contrast ratio. */}
            <Badge color={r.change === 'added' ? 'teal.9' : r.change === 'removed' ? 'red.9' : 'blue.9'}>{r.change}</Badge>
            <Text fw={500}>
              {r.kind} {r.key}
            </Text>
            {r.fields.length > 0 && (
              <Text size="sm" c="dimmed">
                ({r.fields.join(', ')})
              </Text>
            )}
          </Group>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <Side label="Target now" item={r.ours} />
            <Side label="Proposed" item={r.theirs} />
          </SimpleGrid>
        </Card>
      ))}
      {json + design > 0 && (
        <Text size="sm">
          Configuration paths changed:{' '}
          {[...p.changes.configuration.added, ...p.changes.configuration.changed, ...p.changes.configuration.removed].join(', ') || 'none'}; design system:{' '}
          {[...p.changes.designSystem.added, ...p.changes.designSystem.changed, ...p.changes.designSystem.removed].join(', ') || 'none'}
        </Text>
      )}
    </Stack>
  );
}

const takes: Array<{ value: ProposalResolutionTake; label: string }> = [
  { value: 'OURS', label: 'Keep the target’s (ours)' },
  { value: 'THEIRS', label: 'Take the proposal’s (theirs)' },
  { value: 'CUSTOM', label: 'Write my own' },
];

type Conflict = Proposal['conflicts'][number];

/** A conflict's key in the page's choices. */
const conflictId = (c: { kind: string; key: string }) => `${c.kind}:${c.key}`;

/** A custom resolution starts from the target's version (the proposal's when the target removed it), as JSON. */
function customStart(c: Conflict): string {
  const from = c.ours ?? c.theirs ?? null;
  const plain = from !== null && typeof from === 'object' ? Object.fromEntries(Object.entries(from).filter(([k]) => k !== '__typename')) : from;
  return JSON.stringify(plain, null, 2);
}

/**
 * The resolutions to send, or the sentence saying which custom value is not JSON (nothing is sent then;
 * the server checks the rest: same key, plan rules).
 */
function resolutionsOf(
  conflicts: readonly Conflict[],
  choices: Record<string, ProposalResolutionTake>,
  customs: Record<string, string>,
): { resolutions: ProposalResolutionInput[] } | { problem: string } {
  const resolutions: ProposalResolutionInput[] = [];
  for (const c of conflicts) {
    const take = choices[conflictId(c)]!;
    const resolution: ProposalResolutionInput = { kind: c.kind as ProposalConflictKind, key: c.key, take };
    if (take === 'CUSTOM') {
      try {
        resolution.value = JSON.parse(customs[conflictId(c)] ?? customStart(c));
      } catch (err) {
        return { problem: `Your value for ${c.kind.toLowerCase()} ${c.key} is not valid JSON: ${(err as Error).message}` };
      }
    }
    resolutions.push(resolution);
  }
  return { resolutions };
}

export function ProposalPage() {
  const { slug = '', number = '' } = useParams();
  const n = Number(number);
  const { viewer } = useAuth();
  const [{ data, error, fetching }, refetch] = useQuery({ query: ProposalPageDocument, variables: { slug, number: n }, requestPolicy: 'cache-and-network' });
  const [choices, setChoices] = useState<Record<string, ProposalResolutionTake>>({});
  const [customs, setCustoms] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [comment, setComment] = useState('');
  const [mergeState, merge] = useMutation(MergeProposalDocument);
  const [closeState, close] = useMutation(CloseProposalDocument);
  const [, reopen] = useMutation(ReopenProposalDocument);
  const [commentState, commentOn] = useMutation(CommentOnProposalDocument);
  useEffect(() => {
    document.title = `Proposal #${number} · ${slug} · Blueprint Workshop`;
  }, [slug, number]);

  if (error) return <Alert color="red">{errorText(error)}</Alert>;
  if (!data) return <Loading what="proposal" />;
  const bp = data.blueprint;
  const p = bp?.proposal;
  if (!bp || !p) return <Alert color="yellow">No such proposal, or you may not see it.</Alert>;
  const unresolved = p.conflicts.filter((c) => !choices[conflictId(c)]);
  // The target's owner or, for a team target, a team editor: the API's rule for merging, closing and reopening.
  const mayMerge = viewer?.id === bp.owner.id || EDITOR_ROLES.includes(bp.team?.viewerRole ?? '');
  const refresh = () => refetch({ requestPolicy: 'network-only' });

  return (
    <Stack>
      <div>
        <Anchor component={Link} to={`/blueprints/${bp.slug}`} size="sm">
          ← {bp.name}
        </Anchor>
        <Title order={2}>
          Proposal #{p.number}: {p.title}
        </Title>
        <Text size="sm" c="dimmed">
          {p.state.toLowerCase()} · from{' '}
          <Anchor component={Link} to={`/blueprints/${p.source.slug}`}>
            {p.source.name}
          </Anchor>{' '}
          by {p.author.name} · based on version {p.baseVersion ?? '?'}
          {p.mergeVersion ? ` · merged as version ${p.mergeVersion}` : ''}
        </Text>
        {p.body && <Text mt="xs">{p.body}</Text>}
      </div>
      {fetching && (
        <Text size="xs" c="dimmed">
          Refreshing…
        </Text>
      )}
      <Title order={3}>Changes</Title>
      <Changes p={p} />
      {p.conflicts.length > 0 && (
        <>
          <Title order={3}>Conflicts ({p.conflicts.length})</Title>
          <Text size="sm" c="dimmed">
            Both sides changed these since the base. Choose a version for each before merging.
          </Text>
          {p.conflicts.map((c) => (
            <Card key={conflictId(c)} withBorder component="section" aria-label={`Conflict on ${c.kind.toLowerCase()} ${c.key}`} data-testid="conflict">
              <Group gap="xs">
                <Text fw={500}>
                  {c.kind.toLowerCase()} {c.key}
                </Text>
                <Badge color="orange.4" autoContrast>
                  {c.reason}
                </Badge>
              </Group>
              <SimpleGrid cols={{ base: 1, sm: 3 }} mt="xs">
                <Side label="Base" item={c.base} />
                <Side label="Target (ours)" item={c.ours} />
                <Side label="Proposal (theirs)" item={c.theirs} />
              </SimpleGrid>
              {mayMerge && p.state === 'OPEN' && (
                <Radio.Group
                  mt="xs"
                  label={`Resolution for ${c.key}`}
                  value={choices[conflictId(c)] ?? null}
                  onChange={(v) => setChoices((prev) => ({ ...prev, [conflictId(c)]: v as ProposalResolutionTake }))}
                >
                  <Group gap="md" mt={4}>
                    {takes.map((t) => (
                      <Radio key={t.value} value={t.value} label={t.label} />
                    ))}
                  </Group>
                </Radio.Group>
              )}
              {/* Nothing on blur (no formatting, no message under the field): the field must not move the Merge
                  button between the press and the release of a click. Text that is not JSON is named on Merge. */}
              {mayMerge && p.state === 'OPEN' && choices[conflictId(c)] === 'CUSTOM' && (
                <JsonInput
                  mt="xs"
                  label={`Your value for ${c.kind.toLowerCase()} ${c.key}`}
                  description={c.kind === 'MODULE' || c.kind === 'STEP' ? `The whole ${c.kind.toLowerCase()}, with the same key.` : 'The value at this path.'}
                  value={customs[conflictId(c)] ?? customStart(c)}
                  onChange={(v) => setCustoms((prev) => ({ ...prev, [conflictId(c)]: v }))}
                  autosize
                  minRows={4}
                />
              )}
            </Card>
          ))}
        </>
      )}
      {p.state === 'OPEN' && mayMerge && (
        <Group>
          <Button
            disabled={unresolved.length > 0}
            loading={mergeState.fetching}
            onClick={async () => {
              const chosen = resolutionsOf(p.conflicts, choices, customs);
              setProblem('problem' in chosen ? chosen.problem : null);
              if ('problem' in chosen) return;
              const r = await merge({ targetId: bp.id, number: p.number, resolutions: chosen.resolutions });
              if (!r.error) refresh();
            }}
          >
            Merge
          </Button>
          {unresolved.length > 0 && (
            <Text size="sm" c="dimmed">
              {unresolved.length} conflict(s) still need a choice.
            </Text>
          )}
        </Group>
      )}
      {problem && <Alert color="red">{problem}</Alert>}
      {mergeState.error && !problem && <Alert color="red">{errorText(mergeState.error)}</Alert>}
      {p.state !== 'MERGED' && (mayMerge || viewer?.id === p.author.id) && (
        <Group>
          <Button
            variant="default"
            loading={closeState.fetching}
            onClick={async () => {
              await (p.state === 'OPEN' ? close : reopen)({ targetId: bp.id, number: p.number });
              refresh();
            }}
          >
            {p.state === 'OPEN' ? 'Close proposal' : 'Reopen proposal'}
          </Button>
        </Group>
      )}
      <Title order={3}>Comments ({p.comments.totalCount})</Title>
      {p.comments.edges.map(({ node: c }) => (
        <Card key={c.id} withBorder data-testid="comment">
          <Text size="xs" c="dimmed">
            {c.author.name} · {new Date(c.createdAt).toLocaleString()}
            {c.moduleKey ? ` · on module ${c.moduleKey}` : c.stepKey ? ` · on step ${c.stepKey}` : ''}
          </Text>
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {c.body}
          </Text>
        </Card>
      ))}
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const r = await commentOn({ targetId: bp.id, number: p.number, input: { body: comment } });
          if (!r.error) {
            setComment('');
            refresh();
          }
        }}
      >
        <Stack gap="xs">
          <Textarea label="Add a comment" value={comment} onChange={(e) => setComment(e.currentTarget.value)} />
          {commentState.error && <Alert color="red">{errorText(commentState.error)}</Alert>}
          <Button type="submit" variant="default" disabled={!comment.trim()} loading={commentState.fetching} w="fit-content">
            Comment
          </Button>
        </Stack>
      </form>
    </Stack>
  );
}
