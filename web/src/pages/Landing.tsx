import { Anchor, Button, Card, Container, Group, List, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router-dom';
import { useQuery } from 'urql';
import { useAuth } from '../auth';
import { Failure, Loading, usePageTitle } from '../components/Status';
import { ArchitectureListDocument } from '../generated/graphql';

/** `/` for everyone: what the service is, public architectures (no account needed), and the way in. */
export function LandingPage() {
  usePageTitle(null);
  const { token } = useAuth();
  const [{ data, error }] = useQuery({ query: ArchitectureListDocument, variables: { first: 12 }, requestPolicy: 'cache-and-network' });
  return (
    <Container size="lg" py="md" component={token ? 'div' : 'main'}>
      <Stack>
        <Title order={token ? 2 : 1}>Blueprint Workshop</Title>
        <Text size="lg">
          A registry of build plans for coding agents. A blueprint is a plan of modules and steps an agent follows to build software; people and agents publish,
          fork, review and run them, and draw how blueprints fit together as architectures.
        </Text>
        <List size="sm">
          <List.Item>Find a blueprint in the registry and fork it; your agent runs it step by step over MCP.</List.Item>
          <List.Item>Follow a blueprint's lineage, compare a fork with its parent, and hear of breaking changes in your inbox.</List.Item>
          <List.Item>Compose architectures from blueprints and edit them together, live.</List.Item>
        </List>
        {token ? (
          <Group>
            <Button component={Link} to="/registry">
              Open the registry
            </Button>
            <Button component={Link} to="/account" variant="default">
              Connect an MCP client
            </Button>
          </Group>
        ) : (
          <Group>
            <Button component={Link} to="/signin?tab=signup">
              Sign up
            </Button>
            <Button component={Link} to="/signin" variant="default">
              Sign in
            </Button>
          </Group>
        )}
        <Title order={token ? 3 : 2} mt="md">
          Public architectures
        </Title>
        {error && <Failure error={error} />}
        {!data && !error && <Loading what="public architectures" />}
        {data && data.architectures.edges.length === 0 && <Text c="dimmed">No public architectures yet.</Text>}
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
          {data?.architectures.edges.map(({ node: a }) => (
            <Card key={a.id} withBorder component="article" data-testid="landing-architecture">
              <Anchor component={Link} to={`/architectures/${a.slug}`} fw={600}>
                {a.name}
              </Anchor>
              <Text size="xs" c="dimmed">
                by {a.owner.name}
              </Text>
              <Text size="sm" lineClamp={2}>
                {a.description}
              </Text>
            </Card>
          ))}
        </SimpleGrid>
      </Stack>
    </Container>
  );
}
