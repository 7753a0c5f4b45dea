/**
 * A blueprint's reviews. A reader who has not reviewed it sees the form (`reviewBlueprint`); once they have,
 * the form gives way to their own review with Edit (`updateMyReview`) and Delete (`deleteMyReview`, asked first).
 */
import { Alert, Badge, Button, Card, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { Failure, Loading } from '../../components/Status';
import { errorText } from '../../errors';
import { BlueprintReviewsDocument, DeleteMyReviewDocument, ReviewBlueprintDocument, UpdateMyReviewDocument } from '../../generated/graphql';

const RATINGS = ['5', '4', '3', '2', '1'];

/** Rating and words; used to post a review and to edit one's own. */
function ReviewForm({
  initial,
  submitLabel,
  busy,
  error,
  onSubmit,
  onCancel,
}: {
  initial: { rating: number; body: string };
  submitLabel: string;
  busy: boolean;
  error: Parameters<typeof errorText>[0];
  onSubmit(rating: number, body: string): void;
  onCancel?: () => void;
}) {
  const [rating, setRating] = useState(String(initial.rating));
  const [body, setBody] = useState(initial.body);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit(Number(rating), body);
      }}
    >
      <Group align="end" wrap="wrap">
        <Select label="Rating" data={RATINGS} value={rating} onChange={(v) => v && setRating(v)} allowDeselect={false} w={100} />
        <TextInput label="Review" value={body} onChange={(e) => setBody(e.currentTarget.value)} required style={{ flex: '1 1 240px' }} />
        <Button type="submit" loading={busy}>
          {submitLabel}
        </Button>
        {onCancel && (
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
        )}
      </Group>
      {error && (
        <Alert color="red" role="alert" mt="xs">
          {errorText(error)}
        </Alert>
      )}
    </form>
  );
}

export function Reviews({ id, canReview, onChanged }: { id: string; canReview: boolean; onChanged?: () => void }) {
  const [{ data, error }, refetch] = useQuery({ query: BlueprintReviewsDocument, variables: { id }, requestPolicy: 'cache-and-network' });
  const [sent, send] = useMutation(ReviewBlueprintDocument);
  const [updated, update] = useMutation(UpdateMyReviewDocument);
  const [deleted, remove] = useMutation(DeleteMyReviewDocument);
  const [editing, setEditing] = useState(false);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  if (error) return <Failure error={error} />;
  const b = data?.blueprint;
  if (!b) return <Loading what="reviews" />;
  const reviews = b.reviews.edges.map((e) => e.node);
  // Your own review comes on its own field: among the newest 50 it may not be.
  const mine = b.viewerReview ?? null;
  const others = reviews.filter((r) => r.id !== mine?.id);
  const changed = () => {
    refetch({ requestPolicy: 'network-only' });
    onChanged?.();
  };

  return (
    <Stack gap="sm">
      <Text size="sm">{b.reviewCount === 0 ? 'No reviews yet.' : `Rated ${b.ratingAverage?.toFixed(1)} of 5 by ${b.reviewCount}.`}</Text>
      {canReview && !mine && (
        <ReviewForm
          initial={{ rating: 5, body: '' }}
          submitLabel="Post review"
          busy={sent.fetching}
          error={sent.error}
          onSubmit={async (rating, body) => {
            const r = await send({ blueprintId: id, rating, body });
            if (!r.error) changed();
          }}
        />
      )}
      {mine && (
        <Card withBorder component="section" aria-label="Your review" data-testid="my-review">
          {editing ? (
            <ReviewForm
              initial={mine}
              submitLabel="Save review"
              busy={updated.fetching}
              error={updated.error}
              onCancel={() => setEditing(false)}
              onSubmit={async (rating, body) => {
                const r = await update({ blueprintId: id, rating, body });
                if (r.error) return;
                setEditing(false);
                changed();
              }}
            />
          ) : (
            <Stack gap={4}>
              <Group gap="xs">
                <Badge color="yellow.4" autoContrast>
                  {mine.rating}/5
                </Badge>
                <Text size="sm" fw={500}>
                  Your review
                </Text>
                <Text size="xs" c="dimmed">
                  {new Date(mine.createdAt).toLocaleString()}
                </Text>
              </Group>
              <Text size="sm">{mine.body}</Text>
              {confirmingDelete ? (
                <Group gap="xs" role="group" aria-label="Confirm deleting your review">
                  <Text size="sm">Delete your review? This cannot be undone.</Text>
                  <Button
                    size="compact-sm"
                    color="red.8"
                    loading={deleted.fetching}
                    onClick={async () => {
                      const r = await remove({ blueprintId: id });
                      if (r.error) return;
                      setConfirmingDelete(false);
                      changed();
                    }}
                  >
                    Delete review
                  </Button>
                  <Button size="compact-sm" variant="default" onClick={() => setConfirmingDelete(false)}>
                    Keep it
                  </Button>
                </Group>
              ) : (
                <Group gap="xs">
                  <Button size="compact-sm" variant="default" onClick={() => setEditing(true)}>
                    Edit your review
                  </Button>
                  <Button size="compact-sm" variant="default" onClick={() => setConfirmingDelete(true)}>
                    Delete your review
                  </Button>
                </Group>
              )}
              {deleted.error && (
                <Alert color="red" role="alert">
                  {errorText(deleted.error)}
                </Alert>
              )}
            </Stack>
          )}
        </Card>
      )}
      {others.map((r) => (
        <Card key={r.id} withBorder>
          <Group gap="xs">
            <Badge color="yellow.4" autoContrast>
              {r.rating}/5
            </Badge>
            <Text size="sm" fw={500}>
              {r.reviewer.name}
            </Text>
            <Text size="xs" c="dimmed">
              {new Date(r.createdAt).toLocaleString()}
            </Text>
          </Group>
          <Text size="sm" mt={4}>
            {r.body}
          </Text>
        </Card>
      ))}
    </Stack>
  );
}
