import { Alert, Button, Container, Divider, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { Navigate, useSearchParams } from 'react-router-dom';
import { useMutation } from 'urql';
import { useAuth } from '../auth';
import { errorText } from '../client';
import { CreateAgentSessionDocument } from '../generated/graphql';

export function SignInPage() {
  const { token, signIn } = useAuth();
  const [params] = useSearchParams();
  const next = params.get('next') || '/';
  const [agentName, setAgentName] = useState('');
  const [agent, createAgent] = useMutation(CreateAgentSessionDocument);

  if (token) return <Navigate to={next} replace />;

  return (
    <Container size={420} py="xl">
      <Title order={1} size="h2" mb="md">
        Blueprint Workshop
      </Title>
      <Stack>
        <Divider label="Try it without an account" />
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            const r = await createAgent({ name: agentName || undefined });
            if (r.data) signIn(r.data.createAgentSession.token);
          }}
        >
          <Stack gap="xs">
            <TextInput label="Session name (optional)" value={agentName} onChange={(e) => setAgentName(e.currentTarget.value)} />
            <Button type="submit" variant="light" loading={agent.fetching}>
              Start an agent session
            </Button>
            <Text size="xs" c="dimmed">
              An agent session lasts 30 days.
            </Text>
          </Stack>
        </form>
        {agent.error && <Alert color="red">{errorText(agent.error)}</Alert>}
      </Stack>
    </Container>
  );
}
