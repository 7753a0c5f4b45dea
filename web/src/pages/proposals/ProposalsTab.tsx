import { Alert, Anchor, Badge, Button, Card, Group, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { useMutation, useQuery } from 'urql';
import { errorText } from '../../client';
import { Loading, plural } from '../../components/Status';
import { BlueprintProposalsDocument, OpenProposalDocument } from '../../generated/graphql';

// Shade 9 (7 for gray; teal, as green.9 is too light): white on the default shades misses the 4.5:1 contrast ratio.
const stateColor: Record<string, string> = { OPEN: 'teal.9', MERGED: 'violet.9', CLOSED: 'gray.7' };

/** The Proposals tab of a blueprint: every proposal to it the viewer may see, newest first. */
export function ProposalsTab({ id, slug }: { id: string; slug: string }) {
  const [{ data, error }] = useQuery({ query: BlueprintProposalsDocument, variables: { id }, requestPolicy: 'cache-and-network' });
  if (error) return <Alert color="red">{errorText(error)}</Alert>;
  if (!data?.blueprint) return <Loading what="proposals" />;
  const edges = data.blueprint.proposals.edges;
  if (edges.length === 0) return <Text c="dimmed">No proposals yet. A fork of this blueprint can propose its changes here.</Text>;
  return (
    <Stack gap="xs">
      {edges.map(({ node: p }) => (
        <Card key={p.number} withBorder data-testid="proposal-row">
          <Group gap="xs">
            <Badge color={stateColor[p.state] ?? 'gray.7'}>{p.state.toLowerCase()}</Badge>
            <Anchor component={Link} to={`/blueprints/${slug}/proposals/${p.number}`} fw={500}>
              #{p.number} {p.title}
            </Anchor>
          </Group>
          <Text size="sm" c="dimmed">
            from {p.source.name} by {p.author.name} · {plural(p.commentCount, 'comment')}
            {p.state === 'OPEN' && (p.mergeable ? ' · ready to merge' : ' · has conflicts')}
          </Text>
        </Card>
      ))}
    </Stack>
  );
}

/** "Propose to <parent>" on a fork: a title and a description, then the new proposal's page. */
export function ProposeToParent({ sourceId, parent }: { sourceId: string; parent: { id: string; slug: string; name: string } }) {
  const [open, setOpen] = useState(false);
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [state, openProposal] = useMutation(OpenProposalDocument);
  const navigate = useNavigate();
  if (!open)
    return (
      <Button variant="default" onClick={() => setOpen(true)}>
        Propose to {parent.name}
      </Button>
    );
  return (
    <Card
      withBorder
      component="form"
      aria-label={`Propose to ${parent.name}`}
      onSubmit={async (e) => {
        e.preventDefault();
        const r = await openProposal({ targetId: parent.id, input: { sourceBlueprintId: sourceId, title, body } });
        if (r.data) navigate(`/blueprints/${r.data.openProposal.target.slug}/proposals/${r.data.openProposal.number}`);
      }}
    >
      <Stack gap="xs">
        <TextInput label="Proposal title" required value={title} onChange={(e) => setTitle(e.currentTarget.value)} />
        <Textarea label="What it changes, and why" value={body} onChange={(e) => setBody(e.currentTarget.value)} />
        {state.error && <Alert color="red">{errorText(state.error)}</Alert>}
        <Group gap="xs">
          <Button type="submit" loading={state.fetching} disabled={!title.trim()}>
            Open proposal
          </Button>
          <Button variant="subtle" onClick={() => setOpen(false)}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}
