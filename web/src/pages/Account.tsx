import { Stack, Text, Title } from '@mantine/core';
import { useAuth } from '../auth';

export function AccountPage() {
  const { viewer } = useAuth();
  return (
    <Stack>
      <Title order={2}>Account</Title>
      <Text>
        Signed in as {viewer?.name} ({viewer?.kind.toLowerCase()}).
      </Text>
    </Stack>
  );
}
