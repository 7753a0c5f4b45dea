import { Alert, Button, Card, Code, CopyButton, Group, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useMutation } from 'urql';
import { useAuth } from '../auth';
import { errorText } from '../client';
import { plural } from '../components/Status';
import { ClaimAgentSessionDocument } from '../generated/graphql';

/**
 * An agent session in the browser: its `bwa_` token shown (with a copy button), since that token is what
 * an account claims the session's work with. Signing out ends the session.
 */
export function AgentSessionPanel() {
  const { token } = useAuth();
  return (
    <Card withBorder component="section" aria-labelledby="agent-session-title">
      <Title order={3} size="h5" id="agent-session-title">
        This agent session
      </Title>
      <Text size="sm">
        Everything made in this session belongs to it. To keep it, copy the token below, create an account, and claim the session on the account page. Signing
        out ends the session: its work can then no longer be claimed.
      </Text>
      <Group mt="xs" gap="xs" wrap="nowrap">
        <Code data-testid="agent-token" style={{ overflowWrap: 'anywhere' }}>
          {token}
        </Code>
        <CopyButton value={token ?? ''}>
          {({ copied, copy }) => (
            <Button size="compact-sm" variant="default" onClick={copy}>
              {copied ? 'Copied' : 'Copy token'}
            </Button>
          )}
        </CopyButton>
      </Group>
    </Card>
  );
}

/** For a person: moves an agent session's blueprints, architectures, operations and runs into the account. */
export function ClaimForm() {
  const [agentToken, setAgentToken] = useState('');
  const [claimed, claim] = useMutation(ClaimAgentSessionDocument);
  const result = claimed.data?.claimAgentSession;
  return (
    <Card withBorder component="section" aria-labelledby="claim-title">
      <Title order={3} size="h5" id="claim-title">
        Claim an agent session's work
      </Title>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const r = await claim({ agentToken: agentToken.trim() });
          if (r.data) setAgentToken('');
        }}
      >
        <Group align="end" wrap="wrap">
          <TextInput
            label="Agent session token"
            description="The bwa_ token the agent session showed (or its agent used)."
            value={agentToken}
            onChange={(e) => setAgentToken(e.currentTarget.value)}
            required
            style={{ flex: '1 1 300px' }}
          />
          <Button type="submit" loading={claimed.fetching}>
            Claim
          </Button>
        </Group>
      </form>
      {result && (
        <Text size="sm" role="status" mt="xs" data-testid="claim-result">
          Claimed: {plural(result.blueprints, 'blueprint')}, {plural(result.architectures, 'architecture')}, {plural(result.operations, 'operation')} and{' '}
          {plural(result.runs, 'run')} are now yours.
        </Text>
      )}
      {claimed.error && (
        <Alert color="red" mt="xs">
          {errorText(claimed.error)}
        </Alert>
      )}
    </Card>
  );
}
