import { Alert, Anchor, AppShell, Badge, Button, Center, Group, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link, NavLink, Navigate, Route, Routes, useLocation } from 'react-router-dom';
import { useClient } from 'urql';
import { SignOutDocument } from './generated/graphql';
import { useAuth } from './auth';
import { Loading, NotFound, RetryBoundary } from './components/Status';
import { UNAVAILABLE_TEXT } from './errors';
import { InboxLiveProvider, useInboxLive } from './inbox-live';
import { AccountPage } from './pages/Account';
import { ArchitecturePage } from './pages/Architecture';
import { ArchitecturesPage } from './pages/Architectures';
import { BlueprintPage } from './pages/Blueprint';
import { ImportPage } from './pages/Import';
import { InboxPage } from './pages/Inbox';
import { ProposalPage } from './pages/proposals/ProposalPage';
import { LandingPage } from './pages/Landing';
import { RegistryPage } from './pages/Registry';
import { SignInPage } from './pages/SignIn';
import { TeamPage, TeamsPage } from './pages/Teams';
import { UserPage } from './pages/User';

function Nav() {
  const { unread } = useInboxLive();
  const { viewer, token, signOut } = useAuth();
  const client = useClient();
  // A sign-in token is revoked on the server too, and an agent session is ended (REST: the GraphQL API has
  // no mutation for it); account tokens are only forgotten here.
  const leave = async () => {
    if (token?.startsWith('bws_')) await client.mutation(SignOutDocument, {}).toPromise();
    else if (token?.startsWith('bwa_'))
      await fetch('/api/agent/sessions/current', { method: 'DELETE', headers: { authorization: `Bearer ${token}` } }).catch(() => undefined);
    signOut();
  };
  const link = (to: string, label: ReactNode, aria?: string) => (
    <Anchor component={NavLink} to={to} aria-label={aria} fw={500} size="sm" underline="hover">
      {label}
    </Anchor>
  );
  return (
    <Group gap="sm" wrap="wrap" component="nav" aria-label="Main">
      {link('/registry', 'Registry')}
      {link('/architectures', 'Architectures')}
      {link(
        '/inbox',
        <Group gap={4} component="span">
          Inbox
          {unread > 0 && (
            <Badge size="sm" color="red" circle data-testid="inbox-badge">
              {unread}
            </Badge>
          )}
        </Group>,
        unread > 0 ? `Inbox, ${unread} unread` : 'Inbox',
      )}
      {link('/teams', 'Teams')}
      {viewer?.kind === 'USER' && link(`/users/${viewer.name}`, 'Your work')}
      {link('/account', 'Account')}
      <Text size="sm" c="dimmed" data-testid="viewer-name" visibleFrom="sm">
        {viewer?.name}
      </Text>
      <Button size="compact-sm" variant="subtle" onClick={leave}>
        Sign out
      </Button>
    </Group>
  );
}

function SignedIn({ children }: { children: ReactNode }) {
  const { token, checking, unavailable, retry } = useAuth();
  const location = useLocation();
  if (!token) return <Navigate to={`/signin?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  if (unavailable) return <ServiceDown retry={retry} />;
  if (checking) return <Loading what="your account" />;
  return <InboxLiveProvider>{children}</InboxLiveProvider>;
}

function Shell({ children }: { children: ReactNode }) {
  return (
    <AppShell header={{ height: { base: 84, sm: 56 } }} padding="md">
      <AppShell.Header px="md" py={6}>
        <Group justify="space-between" h="100%" wrap="wrap" gap={4}>
          <Title order={1} size="h4">
            <Anchor component={Link} to="/" c="inherit" underline="never">
              Blueprint Workshop
            </Anchor>
          </Title>
          <Nav />
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        <RetryBoundary>{children}</RetryBoundary>
      </AppShell.Main>
    </AppShell>
  );
}

/** The service did not answer the sign-in check: the token is kept, and Retry asks again. */
function ServiceDown({ retry }: { retry(): void }) {
  return (
    <Center h={240} component="main">
      <Alert color="orange" role="alert" maw={520}>
        <Stack gap="xs" align="start">
          <Text fw={700}>Service unavailable</Text>
          <Text size="sm">{UNAVAILABLE_TEXT} You are still signed in.</Text>
          <Button size="compact-sm" onClick={retry}>
            Retry
          </Button>
        </Stack>
      </Alert>
    </Center>
  );
}

const signedIn = (page: ReactNode) => (
  <SignedIn>
    <Shell>{page}</Shell>
  </SignedIn>
);

/** A page anyone may open (the API serves it without a token): signed in, inside the console's frame. */
function Open({ page, landing = false }: { page: ReactNode; landing?: boolean }) {
  const { token } = useAuth();
  if (token) return signedIn(page);
  if (landing) return page;
  return (
    <AppShell header={{ height: 56 }} padding="md">
      <AppShell.Header px="md">
        <Group justify="space-between" h="100%">
          <Title order={1} size="h4">
            <Anchor component={Link} to="/" c="inherit" underline="never">
              Blueprint Workshop
            </Anchor>
          </Title>
          <Anchor component={Link} to="/signin" fw={500} size="sm">
            Sign in
          </Anchor>
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        <RetryBoundary>{page}</RetryBoundary>
      </AppShell.Main>
    </AppShell>
  );
}

export function App() {
  return (
    <Routes>
      <Route path="/signin" element={<SignInPage />} />
      <Route path="/" element={<Open page={<LandingPage />} landing />} />
      <Route path="/registry" element={signedIn(<RegistryPage />)} />
      <Route path="/blueprints/:slug" element={signedIn(<BlueprintPage />)} />
      <Route path="/blueprints/:slug/proposals/:number" element={signedIn(<ProposalPage />)} />
      <Route path="/architectures" element={<Open page={<ArchitecturesPage />} />} />
      <Route path="/architectures/:slug" element={<Open page={<ArchitecturePage />} />} />
      <Route path="/inbox" element={signedIn(<InboxPage />)} />
      <Route path="/account" element={signedIn(<AccountPage />)} />
      <Route path="/import" element={signedIn(<ImportPage />)} />
      <Route path="/users/:username" element={signedIn(<UserPage />)} />
      <Route path="/teams" element={signedIn(<TeamsPage />)} />
      <Route path="/teams/:id" element={signedIn(<TeamPage />)} />
      <Route path="*" element={signedIn(<NotFound />)} />
    </Routes>
  );
}
