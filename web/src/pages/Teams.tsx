import { Alert, Anchor, Button, Card, Group, SimpleGrid, Stack, Table, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { useMutation, useQuery } from 'urql';
import { errorText } from '../client';
import { Failure, Loading, NotFound, plural, usePageTitle } from '../components/Status';
import { TeamActivityChart } from '../components/TeamCharts';
import { TeamMembers } from '../components/TeamMembers';
import { CreateTeamDocument, MyTeamsDocument, TeamAuditDocument, TeamPageDocument, UpdateTeamConventionsDocument } from '../generated/graphql';
import { BlueprintCard } from './Registry';

/** `/teams`: the teams one belongs to, and a form to start one. */
export function TeamsPage() {
  usePageTitle('Teams');
  const navigate = useNavigate();
  const [{ data, error }] = useQuery({ query: MyTeamsDocument, requestPolicy: 'cache-and-network' });
  const [name, setName] = useState('');
  const [created, create] = useMutation(CreateTeamDocument);
  const teams = data?.viewer?.teams ?? [];
  return (
    <Stack>
      <Title order={2}>Teams</Title>
      <Card withBorder component="section" aria-labelledby="new-team">
        <Title order={3} size="h5" id="new-team">
          Start a team
        </Title>
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            const r = await create({ name });
            if (r.data) navigate(`/teams/${r.data.createTeam.id}`);
          }}
        >
          <Group align="end">
            <TextInput label="Team name" value={name} onChange={(e) => setName(e.currentTarget.value)} required style={{ flex: '1 1 220px' }} />
            <Button type="submit" loading={created.fetching}>
              Create team
            </Button>
          </Group>
        </form>
        {created.error && <Alert color="red">{errorText(created.error)}</Alert>}
      </Card>
      {error && <Failure error={error} />}
      {!data && !error && <Loading what="your teams" />}
      {data && teams.length === 0 && <Text c="dimmed">You belong to no team yet. Start one above, or ask a team's owner to add you.</Text>}
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
        {teams.map((t) => (
          <Card key={t.id} withBorder component="article" data-testid="team-card">
            <Anchor component={Link} to={`/teams/${t.id}`} fw={600}>
              {t.name}
            </Anchor>
            <Text size="sm" c="dimmed">
              {plural(t.members.length, 'member')} · you are {t.viewerRole?.toLowerCase()}
            </Text>
          </Card>
        ))}
      </SimpleGrid>
    </Stack>
  );
}

function Conventions({ id, conventions, canEdit }: { id: string; conventions: string; canEdit: boolean }) {
  const [text, setText] = useState(conventions);
  const [saved, save] = useMutation(UpdateTeamConventionsDocument);
  if (!canEdit)
    return (
      <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
        {conventions || 'No conventions yet.'}
      </Text>
    );
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        await save({ id, conventions: text });
      }}
    >
      <Stack gap="xs">
        <Textarea
          label="Conventions"
          description="Given to coding agents with every run of a team blueprint."
          autosize
          minRows={3}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
        />
        <Group>
          <Button type="submit" loading={saved.fetching}>
            Save conventions
          </Button>
          {saved.data && !saved.error && (
            <Text size="sm" role="status">
              Saved.
            </Text>
          )}
        </Group>
        {saved.error && <Alert color="red">{errorText(saved.error)}</Alert>}
      </Stack>
    </form>
  );
}

function AuditLog({ id }: { id: string }) {
  const [{ data, error }] = useQuery({ query: TeamAuditDocument, variables: { id }, requestPolicy: 'cache-and-network' });
  if (error) return <Failure error={error} />;
  const log = data?.team?.auditLog;
  if (!log) return <Loading what="audit log" />;
  if (log.edges.length === 0) return <Text c="dimmed">No changes recorded yet.</Text>;
  return (
    <Table.ScrollContainer minWidth={480}>
      <Table striped data-testid="audit-log">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>When</Table.Th>
            <Table.Th>Who</Table.Th>
            <Table.Th>What</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {log.edges.map(({ node: a }) => (
            <Table.Tr key={a.id} data-testid="audit-entry">
              <Table.Td>{new Date(a.at).toLocaleString()}</Table.Td>
              <Table.Td>{a.actor.name}</Table.Td>
              <Table.Td>{a.action}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** `/teams/:id`: members and roles, conventions, the team's things, its audit log and its activity as a chart. */
export function TeamPage() {
  const { id = '' } = useParams();
  const [{ data, error }] = useQuery({ query: TeamPageDocument, variables: { id }, requestPolicy: 'cache-and-network' });
  usePageTitle(data?.team?.name ?? (data ? 'Not found' : 'Team'));
  if (error && !data) return <Failure error={error} />;
  if (!data) return <Loading what="team" />;
  const team = data.team;
  if (!team) return <NotFound what="team" />;
  const canEdit = team.viewerRole === 'OWNER' || team.viewerRole === 'ADMIN';
  const canSeeAudit = team.viewerRole !== 'VIEWER';
  return (
    <Stack>
      <div>
        <Title order={2}>{team.name}</Title>
        <Text size="sm" c="dimmed">
          {plural(team.members.length, 'member')} · you are {team.viewerRole?.toLowerCase()}
        </Text>
      </div>
      <Card withBorder component="section" aria-labelledby="team-members">
        <Title order={3} size="h5" id="team-members">
          Members and roles
        </Title>
        <TeamMembers teamId={team.id} teamName={team.name} members={team.members} canManage={canEdit} />
      </Card>
      <Card withBorder component="section" aria-labelledby="team-conventions">
        <Title order={3} size="h5" id="team-conventions">
          Conventions
        </Title>
        <Conventions id={team.id} conventions={team.conventions} canEdit={canEdit} />
      </Card>
      <Card withBorder component="section" aria-labelledby="team-activity">
        <Title order={3} size="h5" id="team-activity">
          Activity, last 30 days
        </Title>
        <TeamActivityChart days={team.analytics.days} from={team.analytics.from} to={team.analytics.to} />
      </Card>
      <section aria-labelledby="team-blueprints">
        <Title order={3} size="h5" id="team-blueprints" mb="xs">
          Blueprints ({plural(team.blueprints.totalCount, 'blueprint')})
        </Title>
        {team.blueprints.edges.length === 0 && <Text c="dimmed">No team blueprints yet; transfer one to the team from its page or over the API.</Text>}
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
          {team.blueprints.edges.map(({ node: b }) => (
            <BlueprintCard key={b.id} b={b} />
          ))}
        </SimpleGrid>
      </section>
      <section aria-labelledby="team-architectures">
        <Title order={3} size="h5" id="team-architectures" mb="xs">
          Architectures ({plural(team.architectures.totalCount, 'architecture')})
        </Title>
        {team.architectures.edges.length === 0 && <Text c="dimmed">No team architectures yet.</Text>}
        {team.architectures.edges.map(({ node: a }) => (
          <Anchor key={a.id} component={Link} to={`/architectures/${a.slug}`} display="block">
            {a.name}
          </Anchor>
        ))}
      </section>
      {canSeeAudit && (
        <Card withBorder component="section" aria-labelledby="team-audit">
          <Title order={3} size="h5" id="team-audit">
            Audit log
          </Title>
          <AuditLog id={team.id} />
        </Card>
      )}
    </Stack>
  );
}
