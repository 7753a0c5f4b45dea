/**
 * A blueprint's details for its owner and team editors: name, description, tags and visibility
 * (`updateBlueprint`), and deletion after the person types the blueprint's name (`deleteBlueprint`).
 */
import { Alert, Button, Card, Group, Modal, SegmentedControl, Stack, TagsInput, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useMutation } from 'urql';
import { useAuth } from '../../auth';
import { errorText } from '../../errors';
import { DeleteBlueprintDocument, UpdateBlueprintDetailsDocument, type Visibility } from '../../generated/graphql';

export interface Details {
  id: string;
  name: string;
  description: string;
  tags: string[];
  visibility: Visibility;
}

export function EditDetails({ bp, canDelete, onSaved }: { bp: Details; canDelete: boolean; onSaved(): void }) {
  const [name, setName] = useState(bp.name);
  const [description, setDescription] = useState(bp.description);
  const [tags, setTags] = useState<string[]>(bp.tags);
  const [visibility, setVisibility] = useState<Visibility>(bp.visibility);
  const [saved, save] = useMutation(UpdateBlueprintDetailsDocument);
  const [done, setDone] = useState(false);
  const changed = name !== bp.name || description !== bp.description || visibility !== bp.visibility || tags.join('\n') !== bp.tags.join('\n');

  return (
    <Stack>
      <Card withBorder component="section" aria-labelledby="details-title">
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            setDone(false);
            // Only what changed is sent, so a rule on an untouched field cannot refuse the save.
            const input = {
              ...(name !== bp.name && { name }),
              ...(description !== bp.description && { description }),
              ...(tags.join('\n') !== bp.tags.join('\n') && { tags }),
              ...(visibility !== bp.visibility && { visibility }),
            };
            const r = await save({ id: bp.id, input });
            if (!r.error) {
              setDone(true);
              onSaved();
            }
          }}
        >
          <Stack gap="sm">
            <Title order={3} size="h4" id="details-title">
              Details
            </Title>
            <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} required />
            <Textarea label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} autosize minRows={2} />
            <TagsInput label="Tags" description="Press Enter after each tag, Backspace to remove the last one" value={tags} onChange={setTags} />
            <div>
              <Text size="sm" fw={500} id="visibility-label">
                Visibility
              </Text>
              <SegmentedControl
                aria-labelledby="visibility-label"
                data={[
                  { value: 'PUBLIC', label: 'Public' },
                  { value: 'PRIVATE', label: 'Private' },
                ]}
                value={visibility}
                onChange={(v) => setVisibility(v as Visibility)}
              />
              <Text size="xs" c="dimmed">
                {visibility === 'PUBLIC' ? 'Anyone can find, read and fork it.' : 'Only you (and its team) can see it; others get “not found”.'}
              </Text>
            </div>
            <Group>
              <Button type="submit" loading={saved.fetching} disabled={!changed}>
                Save details
              </Button>
              {done && !changed && (
                <Text size="sm" className="status-ok" role="status">
                  Saved.
                </Text>
              )}
            </Group>
            {saved.error && (
              <Alert color="red" role="alert">
                {errorText(saved.error)}
              </Alert>
            )}
          </Stack>
        </form>
      </Card>
      {canDelete && <DeleteBlueprint bp={bp} />}
    </Stack>
  );
}

/** Deleting asks first: the button of the dialog works only once the person has typed the blueprint's name. */
function DeleteBlueprint({ bp }: { bp: Details }) {
  const { viewer } = useAuth();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const [deleted, remove] = useMutation(DeleteBlueprintDocument);
  const close = () => {
    setOpen(false);
    setTyped('');
  };
  return (
    <Card withBorder component="section" aria-labelledby="delete-title">
      <Stack gap="xs" align="start">
        <Title order={3} size="h4" id="delete-title">
          Delete this blueprint
        </Title>
        <Text size="sm">Its plan, versions, reviews and changelog go; its forks stay and lose their parent.</Text>
        <Button color="red" variant="outline" onClick={() => setOpen(true)}>
          Delete blueprint…
        </Button>
      </Stack>
      <Modal opened={open} onClose={close} title={`Delete “${bp.name}”?`} closeButtonProps={{ 'aria-label': 'Close' }} centered>
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            const r = await remove({ id: bp.id });
            if (r.error) return;
            close();
            // One's own page lists what is left; an agent session has none, so it goes to the registry.
            navigate(viewer?.kind === 'USER' ? `/users/${viewer.name}` : '/registry', { replace: true, state: { deleted: bp.name } });
          }}
        >
          <Stack>
            <Text size="sm">This cannot be undone. Type the blueprint’s name to confirm.</Text>
            <TextInput label="Blueprint name" value={typed} onChange={(e) => setTyped(e.currentTarget.value)} autoComplete="off" data-autofocus />
            {deleted.error && (
              <Alert color="red" role="alert">
                {errorText(deleted.error)}
              </Alert>
            )}
            <Group justify="end">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" color="red.8" disabled={typed.trim() !== bp.name} loading={deleted.fetching}>
                Delete forever
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Card>
  );
}
