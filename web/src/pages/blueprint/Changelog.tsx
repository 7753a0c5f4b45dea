/**
 * A blueprint's changelog, newest first, and for its owner a form that publishes an entry
 * (`publishChangelogEntry`; it sends no broadcast, the broadcast form above does that).
 */
import { Alert, Button, Card, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useMutation } from 'urql';
import { errorText } from '../../errors';
import { PublishChangelogEntryDocument } from '../../generated/graphql';

interface Entry {
  id: string;
  title: string;
  body: string;
  createdAt: string;
}

export function Changelog({ id, entries, canPublish, onPublished }: { id: string; entries: Entry[]; canPublish: boolean; onPublished(): void }) {
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [published, publish] = useMutation(PublishChangelogEntryDocument);
  return (
    <Stack>
      {canPublish && (
        <Card withBorder component="section" aria-labelledby="publish-title">
          <form
            onSubmit={async (e) => {
              e.preventDefault();
              const r = await publish({ blueprintId: id, title, body });
              if (r.error) return;
              setTitle('');
              setBody('');
              onPublished();
            }}
          >
            <Stack gap="xs">
              <Title order={3} size="h5" id="publish-title">
                Publish a changelog entry
              </Title>
              <TextInput label="Entry title" value={title} onChange={(e) => setTitle(e.currentTarget.value)} required />
              <Textarea label="What changed" value={body} onChange={(e) => setBody(e.currentTarget.value)} autosize minRows={3} required />
              <Button type="submit" loading={published.fetching} style={{ alignSelf: 'start' }}>
                Publish entry
              </Button>
              {published.data && !published.error && (
                <Text size="sm" className="status-ok" role="status">
                  Published “{published.data.publishChangelogEntry.title}”.
                </Text>
              )}
              {published.error && (
                <Alert color="red" role="alert">
                  {errorText(published.error)}
                </Alert>
              )}
            </Stack>
          </form>
        </Card>
      )}
      {entries.length === 0 ? (
        <Text c="dimmed">{canPublish ? 'No changelog entries yet; publish the first one above.' : 'No changelog entries.'}</Text>
      ) : (
        entries.map((c) => (
          <Card key={c.id} withBorder component="article" aria-labelledby={`entry-${c.id}`}>
            <Title order={4} id={`entry-${c.id}`}>
              {c.title}
            </Title>
            <Text size="xs" c="dimmed">
              {new Date(c.createdAt).toLocaleString()}
            </Text>
            <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
              {c.body}
            </Text>
          </Card>
        ))
      )}
    </Stack>
  );
}
