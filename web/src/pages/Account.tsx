import {
  Alert,
  Anchor,
  Button,
  Card,
  Code,
  CopyButton,
  Group,
  Modal,
  NumberInput,
  SegmentedControl,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { useMutation, useQuery } from 'urql';
import { useAuth } from '../auth';
import { errorText } from '../client';
import { Failure, Loading, usePageTitle } from '../components/Status';
import { AgentSessionPanel, ClaimForm } from './AgentSession';
import {
  AccountTokensDocument,
  CreateAccessTokenDocument,
  RevokeAccessTokenDocument,
  type CreateAccessTokenMutation,
  type TokenScope,
} from '../generated/graphql';

const when = (iso: string | null | undefined, none = 'never') => (iso ? new Date(iso).toLocaleString() : none);

/** A ready MCP client configuration (Streamable HTTP with a bearer header), as most clients read it. */
export function mcpConfig(origin: string, token: string): string {
  return JSON.stringify(
    { mcpServers: { 'blueprint-workshop': { type: 'http', url: `${origin}/mcp`, headers: { Authorization: `Bearer ${token}` } } } },
    null,
    2,
  );
}

function Copyable({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <Stack gap={4}>
      <Group justify="space-between">
        <Text size="sm" fw={500}>
          {label}
        </Text>
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Button size="compact-xs" variant="light" onClick={copy} aria-label={`Copy ${label.toLowerCase()}`}>
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
      </Group>
      <Code block data-testid={testId} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
        {value}
      </Code>
    </Stack>
  );
}

function NewToken({ created }: { created: CreateAccessTokenMutation['createAccessToken'] }) {
  const origin = location.origin;
  return (
    <Alert color="teal" title={`Token “${created.name}” created (${created.scope.toLowerCase()})`} role="status">
      <Stack gap="sm">
        <Text size="sm">This is the only time the token is shown. Copy it now.</Text>
        <Copyable label="Token" value={created.token} testId="new-token" />
        <Copyable label="MCP client configuration" value={mcpConfig(origin, created.token)} testId="mcp-config" />
        <Copyable label="Try it with curl" value={`curl -H "Authorization: Bearer ${created.token}" ${origin}/api/inbox`} testId="curl-line" />
      </Stack>
    </Alert>
  );
}

function Tokens() {
  const [{ data, error, fetching }, refetch] = useQuery({ query: AccountTokensDocument, requestPolicy: 'cache-and-network' });
  const [name, setName] = useState('');
  const [scope, setScope] = useState<TokenScope>('READ');
  const [days, setDays] = useState<number | string>('');
  const [created, create] = useMutation(CreateAccessTokenDocument);
  const [revoked, revoke] = useMutation(RevokeAccessTokenDocument);
  const [shown, setShown] = useState<CreateAccessTokenMutation['createAccessToken'] | null>(null);
  const tokens = data?.viewer?.tokens ?? [];
  const [confirming, setConfirming] = useState<(typeof tokens)[number] | null>(null);

  return (
    <Stack>
      <Card withBorder component="section" aria-labelledby="new-token-title">
        <Title order={3} size="h5" id="new-token-title">
          New token for an MCP client
        </Title>
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            const r = await create({ name, scope, expiresInDays: typeof days === 'number' ? days : null });
            if (r.data) {
              setShown(r.data.createAccessToken);
              setName('');
              refetch({ requestPolicy: 'network-only' });
            }
          }}
        >
          <Group align="end" wrap="wrap">
            <TextInput
              label="Token name"
              placeholder="e.g. laptop editor"
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              required
              style={{ flex: '1 1 200px' }}
            />
            <div>
              <Text size="sm" fw={500} id="scope-label" mb={2}>
                Scope
              </Text>
              <SegmentedControl
                aria-labelledby="scope-label"
                value={scope}
                onChange={(v) => setScope(v as TokenScope)}
                data={[
                  { value: 'READ', label: 'Read' },
                  { value: 'WRITE', label: 'Read and write' },
                ]}
              />
            </div>
            <NumberInput label="Expires in days (optional)" min={1} max={3650} value={days} onChange={setDays} w={190} />
            <Button type="submit" loading={created.fetching}>
              Create token
            </Button>
          </Group>
        </form>
        {created.error && <Alert color="red">{errorText(created.error)}</Alert>}
      </Card>
      {shown && <NewToken created={shown} />}
      <Card withBorder component="section" aria-labelledby="tokens-title">
        <Title order={3} size="h5" id="tokens-title">
          Your tokens
        </Title>
        {error && <Failure error={error} />}
        {fetching && !data && <Loading what="tokens" />}
        {data && tokens.length === 0 && <Text c="dimmed">No tokens yet.</Text>}
        {tokens.length > 0 && (
          <Table.ScrollContainer minWidth={640}>
            <Table data-testid="token-table">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Scope</Table.Th>
                  <Table.Th>Starts with</Table.Th>
                  <Table.Th>Created</Table.Th>
                  <Table.Th>Last used</Table.Th>
                  <Table.Th>Expires</Table.Th>
                  <Table.Th>
                    <span className="sr-only">Actions</span>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {tokens.map((t) => (
                  <Table.Tr key={t.id} data-testid="token-row">
                    <Table.Td>{t.name}</Table.Td>
                    <Table.Td>{t.scope.toLowerCase()}</Table.Td>
                    <Table.Td>
                      <Code>{t.prefix}…</Code>
                    </Table.Td>
                    <Table.Td>{when(t.createdAt)}</Table.Td>
                    <Table.Td data-testid="last-used">{when(t.lastUsedAt)}</Table.Td>
                    <Table.Td>{when(t.expiresAt)}</Table.Td>
                    <Table.Td>
                      <Button size="compact-xs" color="red" variant="light" aria-label={`Revoke ${t.name}`} onClick={() => setConfirming(t)}>
                        Revoke
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
        {revoked.error && <Alert color="red">{errorText(revoked.error)}</Alert>}
      </Card>
      <Modal
        opened={confirming !== null}
        onClose={() => setConfirming(null)}
        title={`Revoke “${confirming?.name ?? ''}”?`}
        closeButtonProps={{ 'aria-label': 'Close' }}
        centered
      >
        <Stack>
          <Text size="sm">Every client using this token is refused from now on. This cannot be undone; you can create a new token.</Text>
          <Group justify="end">
            <Button variant="default" onClick={() => setConfirming(null)}>
              Cancel
            </Button>
            <Button
              // Shade 8: white on red's default shade 6 misses the 4.5:1 contrast ratio.
              color="red.8"
              loading={revoked.fetching}
              onClick={async () => {
                const r = await revoke({ id: confirming!.id });
                setConfirming(null);
                if (!r.error) refetch({ requestPolicy: 'network-only' });
              }}
            >
              Revoke token
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}

export function AccountPage() {
  const { viewer, signOut } = useAuth();
  usePageTitle('Account');
  return (
    <Stack>
      <Title order={2}>Account and MCP setup</Title>
      <Text>
        Signed in as <b>{viewer?.name}</b> ({viewer?.kind === 'USER' ? 'account' : 'agent session'}).
      </Text>
      <Text size="sm">
        Have an AGENTS.md, CLAUDE.md, Cursor rules or a blueprint.json?{' '}
        <Anchor component={Link} to="/import">
          Import it as a blueprint
        </Anchor>
        .
      </Text>
      {viewer?.kind === 'USER' ? (
        <>
          <Text size="sm" c="dimmed">
            An MCP client (an editor, an agent) connects to <Code>{location.origin}/mcp</Code> with one of these tokens. A read token is refused on every write.
            Revoking one takes effect at once.
          </Text>
          <Tokens />
          <ClaimForm />
        </>
      ) : (
        <>
          <AgentSessionPanel />
          <Alert color="gray">
            Tokens for MCP clients belong to accounts.{' '}
            <Anchor component="button" type="button" onClick={signOut}>
              Sign out and create an account
            </Anchor>{' '}
            to make some.
          </Alert>
        </>
      )}
    </Stack>
  );
}
