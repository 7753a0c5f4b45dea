import { Anchor, Badge, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { Link, useParams } from 'react-router-dom';
import { useQuery } from 'urql';
import { useAuth } from '../auth';
import { Failure, Loading, NotFound, plural, usePageTitle } from '../components/Status';
import { UserPageDocument } from '../generated/graphql';
import { BlueprintCard } from './Registry';

/** `/users/:username`: a person's blueprints and architectures; to the person themself, the private ones too. */
export function UserPage() {
  const { username = '' } = useParams();
  const { viewer } = useAuth();
  const [{ data, error }] = useQuery({ query: UserPageDocument, variables: { username }, requestPolicy: 'cache-and-network' });
  const self = viewer?.kind === 'USER' && viewer.name === username;
  usePageTitle(data?.user ? (self ? 'Your work' : data.user.name) : data ? 'Not found' : username);
  if (error) return <Failure error={error} />;
  if (!data) return <Loading what={`${username}'s work`} />;
  const user = data.user;
  if (!user) return <NotFound what="person" />;
  const blueprints = user.blueprints.edges.map((e) => e.node);
  const architectures = user.architectures.edges.map((e) => e.node);
  const visibilityBadge = (v: string) =>
    v === 'PRIVATE' ? (
      <Badge size="sm" color="gray" variant="filled">
        private
      </Badge>
    ) : null;
  return (
    <Stack>
      <div>
        <Title order={2}>{self ? 'Your work' : user.name}</Title>
        <Text size="sm" c="dimmed">
          {self
            ? 'Your blueprints and architectures, private ones included (only you see those here).'
            : `Public blueprints and architectures of ${user.name}.`}
        </Text>
      </div>
      <section aria-labelledby="user-blueprints">
        <Title order={3} id="user-blueprints" mb="xs">
          Blueprints{' '}
          <Text span c="dimmed" size="sm" data-testid="user-blueprint-count">
            ({plural(user.blueprints.totalCount, 'blueprint')})
          </Text>
        </Title>
        {blueprints.length === 0 && (
          <Text c="dimmed">
            {self
              ? 'You have no blueprints yet. An agent creates them over MCP or the API; forking one from the registry makes it yours too.'
              : 'No public blueprints.'}
          </Text>
        )}
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
          {blueprints.map((b) => (
            <div key={b.id} data-visibility={b.visibility.toLowerCase()}>
              <BlueprintCard b={b} extra={visibilityBadge(b.visibility)} />
            </div>
          ))}
        </SimpleGrid>
      </section>
      <section aria-labelledby="user-architectures">
        <Title order={3} id="user-architectures" mb="xs">
          Architectures{' '}
          <Text span c="dimmed" size="sm">
            ({plural(user.architectures.totalCount, 'architecture')})
          </Text>
        </Title>
        {architectures.length === 0 && <Text c="dimmed">{self ? 'You have no architectures yet.' : 'No public architectures.'}</Text>}
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
          {architectures.map((a) => (
            <Card key={a.id} withBorder component="article" data-testid="architecture-card">
              <Group gap="xs">
                <Anchor component={Link} to={`/architectures/${a.slug}`} fw={600}>
                  {a.name}
                </Anchor>
                {visibilityBadge(a.visibility)}
              </Group>
              <Text size="sm" lineClamp={2}>
                {a.description}
              </Text>
            </Card>
          ))}
        </SimpleGrid>
      </section>
    </Stack>
  );
}
