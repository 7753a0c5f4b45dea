import { Alert, Badge, Button, Group, Modal, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useClient, useMutation } from 'urql';
import { errorText } from '../errors';
import {
  AddTeamMemberDocument,
  PersonByUsernameDocument,
  RemoveTeamMemberDocument,
  UpdateTeamMemberDocument,
  type TeamMemberFieldsFragment,
  type TeamRole,
} from '../generated/graphql';

/** The roles a member can be given here; ownership is handed over, not assigned (and not from this table). */
const ROLES: { value: TeamRole; label: string }[] = [
  { value: 'ADMIN', label: 'Admin' },
  { value: 'MEMBER', label: 'Member' },
  { value: 'VIEWER', label: 'Viewer' },
];

function AddMember({ teamId }: { teamId: string }) {
  const client = useClient();
  const [username, setUsername] = useState('');
  const [role, setRole] = useState<TeamRole>('MEMBER');
  const [problem, setProblem] = useState<string | null>(null);
  const [added, add] = useMutation(AddTeamMemberDocument);
  const [looking, setLooking] = useState(false);
  return (
    <form
      aria-label="Add a member"
      onSubmit={async (e) => {
        e.preventDefault();
        setProblem(null);
        const name = username.trim().toLowerCase();
        setLooking(true);
        const found = await client.query(PersonByUsernameDocument, { username: name }, { requestPolicy: 'network-only' }).toPromise();
        setLooking(false);
        if (found.error) return setProblem(errorText(found.error));
        const person = found.data?.user;
        if (!person) return setProblem(`There is no person with the username “${name}”.`);
        const r = await add({ teamId, principalId: person.id, role });
        if (r.error) return setProblem(errorText(r.error));
        setUsername('');
      }}
    >
      <Group align="end" wrap="wrap" mt="sm">
        <TextInput
          label="Username"
          description="The person's username, as on their page"
          value={username}
          onChange={(e) => setUsername(e.currentTarget.value)}
          required
          style={{ flex: '1 1 200px' }}
        />
        <Select label="Role" data={ROLES} value={role} onChange={(v) => v && setRole(v as TeamRole)} allowDeselect={false} w={140} />
        <Button type="submit" loading={looking || added.fetching}>
          Add member
        </Button>
      </Group>
      {problem && (
        <Alert color="red" mt="xs" role="alert">
          {problem}
        </Alert>
      )}
    </form>
  );
}

/**
 * Members and their roles. The owner and admins add people by username, change a member's role and remove
 * a member after a confirmation; everyone else sees the list. The owner's row is never editable here.
 */
export function TeamMembers({
  teamId,
  teamName,
  members,
  canManage,
}: {
  teamId: string;
  teamName: string;
  members: TeamMemberFieldsFragment[];
  canManage: boolean;
}) {
  const [changed, change] = useMutation(UpdateTeamMemberDocument);
  const [removed, remove] = useMutation(RemoveTeamMemberDocument);
  const [confirming, setConfirming] = useState<TeamMemberFieldsFragment['principal'] | null>(null);
  const failure = errorText(changed.error) ?? errorText(removed.error);
  return (
    <Stack gap="xs">
      <Table.ScrollContainer minWidth={420}>
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Role</Table.Th>
              <Table.Th>Joined</Table.Th>
              {canManage && <Table.Th>Actions</Table.Th>}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {members.map((m) => {
              const editable = canManage && m.role !== 'OWNER';
              return (
                <Table.Tr key={m.principal.id} data-testid="team-member" data-role={m.role.toLowerCase()}>
                  <Table.Td>
                    {m.principal.name}
                    {m.principal.kind === 'AGENT' && (
                      <Text span size="xs" c="dimmed">
                        {' '}
                        (agent)
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    {editable ? (
                      <Select
                        size="xs"
                        aria-label={`Role of ${m.principal.name}`}
                        data={ROLES}
                        value={m.role}
                        onChange={(v) => v && v !== m.role && void change({ teamId, principalId: m.principal.id, role: v as TeamRole })}
                        allowDeselect={false}
                        w={130}
                      />
                    ) : (
                      <Badge variant="light">{m.role.toLowerCase()}</Badge>
                    )}
                  </Table.Td>
                  <Table.Td>{new Date(m.joinedAt).toLocaleDateString()}</Table.Td>
                  {canManage && (
                    <Table.Td>
                      {editable && (
                        <Button size="compact-xs" variant="default" aria-label={`Remove ${m.principal.name}`} onClick={() => setConfirming(m.principal)}>
                          Remove
                        </Button>
                      )}
                    </Table.Td>
                  )}
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {failure && (
        <Alert color="red" role="alert">
          {failure}
        </Alert>
      )}
      {canManage && <AddMember teamId={teamId} />}
      <Modal
        opened={confirming !== null}
        onClose={() => setConfirming(null)}
        title={`Remove ${confirming?.name ?? ''} from ${teamName}?`}
        closeButtonProps={{ 'aria-label': 'Close' }}
        centered
      >
        <Stack>
          <Text size="sm">They lose access to the team's private blueprints and architectures. You can add them again later.</Text>
          <Group justify="end">
            <Button variant="default" onClick={() => setConfirming(null)}>
              Cancel
            </Button>
            <Button
              // Shade 8: white on red's default shade 6 misses the 4.5:1 contrast ratio.
              color="red.8"
              loading={removed.fetching}
              onClick={async () => {
                await remove({ teamId, principalId: confirming!.id });
                setConfirming(null);
              }}
            >
              Remove member
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
