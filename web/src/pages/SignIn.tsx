import { Alert, Button, Container, Divider, PasswordInput, Stack, Tabs, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { Navigate, useSearchParams } from 'react-router-dom';
import { useMutation } from 'urql';
import { useAuth } from '../auth';
import { errorText } from '../client';
import { usePageTitle } from '../components/Status';
import { CreateAgentSessionDocument, SignInDocument, SignUpDocument } from '../generated/graphql';

function AccountForm({ mode }: { mode: 'signin' | 'signup' }) {
  const { signIn } = useAuth();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [signInState, doSignIn] = useMutation(SignInDocument);
  const [signUpState, doSignUp] = useMutation(SignUpDocument);
  const state = mode === 'signin' ? signInState : signUpState;
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        const r = mode === 'signin' ? await doSignIn({ username, password }) : await doSignUp({ username, password });
        const payload = r.data && ('signIn' in r.data ? r.data.signIn : r.data.signUp);
        if (payload) signIn(payload.token);
      }}
    >
      <Stack gap="sm">
        <TextInput
          label="Username"
          autoComplete="username"
          description={mode === 'signup' ? '3-40 characters: a-z, 0-9 and -' : undefined}
          value={username}
          onChange={(e) => setUsername(e.currentTarget.value)}
          required
        />
        <PasswordInput
          label="Password"
          autoComplete={mode === 'signup' ? 'new-password' : 'current-password'}
          description={mode === 'signup' ? 'At least 12 characters' : undefined}
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
          required
        />
        <Button type="submit" loading={state.fetching}>
          {mode === 'signin' ? 'Sign in' : 'Create account'}
        </Button>
        {state.error && (
          <Alert color="red" role="alert">
            {errorText(state.error)}
          </Alert>
        )}
      </Stack>
    </form>
  );
}

export function SignInPage() {
  usePageTitle('Sign in');
  const { token, signIn } = useAuth();
  const [params] = useSearchParams();
  const next = params.get('next') || '/registry';
  const [agentName, setAgentName] = useState('');
  const [agent, createAgent] = useMutation(CreateAgentSessionDocument);

  if (token) return <Navigate to={next} replace />;

  return (
    <Container size={420} py="xl">
      <Title order={1} size="h2" mb="md">
        Blueprint Workshop
      </Title>
      <Stack>
        <Tabs defaultValue={params.get('tab') === 'signup' ? 'signup' : 'signin'} keepMounted={false}>
          <Tabs.List grow>
            <Tabs.Tab value="signin">Sign in</Tabs.Tab>
            <Tabs.Tab value="signup">Sign up</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="signin" pt="md">
            <AccountForm mode="signin" />
          </Tabs.Panel>
          <Tabs.Panel value="signup" pt="md">
            <AccountForm mode="signup" />
          </Tabs.Panel>
        </Tabs>
        <Divider label="or try it without an account" />
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
              An agent session lasts 30 days; it cannot mint MCP tokens.
            </Text>
          </Stack>
        </form>
        {agent.error && <Alert color="red">{errorText(agent.error)}</Alert>}
      </Stack>
    </Container>
  );
}
