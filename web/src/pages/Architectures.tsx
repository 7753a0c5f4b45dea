import { Alert, Anchor, Badge, Button, Card, Group, Select, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { useMutation, useQuery } from 'urql';
import { useAuth } from '../auth';
import { errorText } from '../client';
import { Failure, Loading, plural, usePageTitle } from '../components/Status';
import { ArchitectureListDocument, CreateArchitectureDocument, type Visibility } from '../generated/graphql';

/** `/architectures`: public architectures, open without an account (as the API's `architectures` is); signed in, a form to create one. */
export function ArchitecturesPage() {
  usePageTitle('Architectures');
  const { token } = useAuth();
  const navigate = useNavigate();
  const [{ data, error }] = useQuery({ query: ArchitectureListDocument, variables: { first: 50 }, requestPolicy: 'cache-and-network' });
  const [created, create] = useMutation(CreateArchitectureDocument);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [visibility, setVisibility] = useState<Visibility>('PUBLIC');

  return (
    <Stack>
      <Title order={2}>Architectures</Title>
      {token && (
        <Card withBorder component="section" aria-labelledby="new-arch">
          <Title order={3} size="h5" id="new-arch">
            New architecture
          </Title>
          <form
            onSubmit={async (e) => {
              e.preventDefault();
              const r = await create({ input: { name, description, visibility } });
              if (r.data) navigate(`/architectures/${r.data.createArchitecture.slug}`);
            }}
          >
            <Group align="end" wrap="wrap">
              <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} required style={{ flex: '1 1 200px' }} />
              <TextInput label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} style={{ flex: '2 1 240px' }} />
              <Select
                label="Visibility"
                data={[
                  { value: 'PUBLIC', label: 'Public' },
                  { value: 'PRIVATE', label: 'Private' },
                ]}
                value={visibility}
                onChange={(v) => v && setVisibility(v as Visibility)}
                allowDeselect={false}
                w={130}
              />
              <Button type="submit" loading={created.fetching}>
                Create
              </Button>
            </Group>
          </form>
          {created.error && <Alert color="red">{errorText(created.error)}</Alert>}
        </Card>
      )}
      {error && <Failure error={error} />}
      {!data && !error && <Loading what="architectures" />}
      {data && (
        <>
          <Text size="sm" c="dimmed">
            {plural(data.architectures.totalCount, 'public architecture')}
          </Text>
          {data.architectures.totalCount === 0 && <Text c="dimmed">No public architectures yet.</Text>}
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
            {data.architectures.edges.map(({ node: a }) => (
              <Card key={a.id} withBorder component="article" data-testid="architecture-card">
                <Anchor component={Link} to={`/architectures/${a.slug}`} fw={600}>
                  {a.name}
                </Anchor>
                <Text size="xs" c="dimmed">
                  by {a.owner.name}
                </Text>
                <Text size="sm" lineClamp={2}>
                  {a.description}
                </Text>
                <Badge mt="xs" variant="outline" color="gray">
                  {plural(a.nodes.length, 'blueprint')}
                </Badge>
              </Card>
            ))}
          </SimpleGrid>
        </>
      )}
    </Stack>
  );
}
