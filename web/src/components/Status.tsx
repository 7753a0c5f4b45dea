import { Alert, Anchor, Button, Center, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { errorText, isUnavailable } from '../errors';

type ErrorLike = Parameters<typeof errorText>[0];

/** Each page names itself in the window title: "Payments service · Blueprint Workshop". */
export function usePageTitle(title: string | null | undefined): void {
  useEffect(() => {
    document.title = title ? `${title} · Blueprint Workshop` : 'Blueprint Workshop';
  }, [title]);
}

const RetryContext = createContext<() => void>(() => window.location.reload());

/**
 * Gives the page below a `retry` that mounts it again, so every query it holds runs again (urql keeps
 * no failed result in its cache). Only a retry remounts: a change of the URL's query (the registry's
 * search, the architecture's zoom) keeps the page, its focus and its live subscriptions.
 */
export function RetryBoundary({ children }: { children: ReactNode }) {
  const [attempt, setAttempt] = useState(0);
  return (
    <RetryContext.Provider value={() => setAttempt((a) => a + 1)}>
      <div key={attempt}>{children}</div>
    </RetryContext.Provider>
  );
}

/** A failed request as a sentence; when the service did not answer (5xx, network), a Retry button. */
export function Failure({ error, retry }: { error: ErrorLike; retry?: () => void }) {
  const remount = useContext(RetryContext);
  const again = retry ?? remount;
  const down = isUnavailable(error);
  return (
    // No Alert title: Mantine draws it in the alert's colour, which fails the contrast rule on a light background.
    <Alert color={down ? 'orange' : 'red'} role="alert">
      <Group justify="space-between" gap="xs">
        <Text size="sm">{errorText(error)}</Text>
        {down && (
          <Button size="compact-sm" onClick={again}>
            Retry
          </Button>
        )}
      </Group>
    </Alert>
  );
}

/** A spinner that says what is loading. */
export function Loading({ what }: { what: string }) {
  return (
    <Center h={120} role="status">
      <Group gap="xs">
        <Loader size="sm" aria-hidden />
        <Text size="sm" c="dimmed">
          Loading {what}…
        </Text>
      </Group>
    </Center>
  );
}

/** A page for a path that names nothing (or something private to someone else). */
export function NotFound({ what = 'page' }: { what?: string }) {
  usePageTitle('Not found');
  return (
    <Stack align="start" data-testid="not-found">
      <Title order={2}>Not found</Title>
      <Text>There is no such {what}, or it is private to someone else.</Text>
      <Anchor component={Link} to="/">
        Back to the start page
      </Anchor>
    </Stack>
  );
}

/** "1 fork", "3 forks". */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
