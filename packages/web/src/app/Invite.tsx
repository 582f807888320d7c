import {
  Alert,
  Badge,
  Button,
  Checkbox,
  Group,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { useState } from 'react';
import type { ApiError } from '../api/client.ts';
import { type Invitation, useInvitations, useInvite, useRevokeInvitation } from '../api/joining.ts';
import { useMe } from '../api/session.ts';
import { formatDay } from '../format.ts';
import { Failure, Loading, NotAllowed } from './pages.tsx';
import { EMAIL } from './passwords.ts';

/**
 * `/invite`: invites someone by email into the roles the user's point-6 `people` grant allows
 * (`people.inviteRoles`), and lists the pending invitations they sent (every one, for a user who
 * manages people) with a way to revoke each.
 */
export function Invite() {
  const me = useMe();
  const people = me.data?.people ?? null;
  const mayInvite = people !== null && (people.mayInvite || people.manage);
  const invitations = useInvitations(mayInvite);
  if (me.isPending) return <Loading what="Loading" />;
  if (!me.data?.user) return <NotAllowed reason="sign-in" />;
  if (!people || !mayInvite) return <NotAllowed reason="forbidden" />;

  return (
    <Stack gap="lg" maw={820}>
      <Title order={1}>Invite people</Title>
      <InviteForm roles={people.inviteRoles} />
      <Stack gap="xs">
        <Title order={2} size="h4">
          Pending invitations
        </Title>
        {invitations.isPending ? (
          <Loading what="Loading the invitations" />
        ) : invitations.isError ? (
          <Failure error={invitations.error} retry={() => void invitations.refetch()} />
        ) : (
          <Pending items={invitations.data} showSender={people.manage} />
        )}
      </Stack>
    </Stack>
  );
}

function InviteForm({ roles }: { roles: string[] }) {
  const [email, setEmail] = useState('');
  const [chosen, setChosen] = useState<string[]>(roles.length === 1 ? roles : []);
  const [errors, setErrors] = useState<{ email?: string; roles?: string }>({});
  const [sent, setSent] = useState<string | null>(null);
  const invite = useInvite();
  const problem = (invite.error as ApiError | null)?.problem;
  return (
    <Paper p="lg" withBorder>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const trimmed = email.trim();
          const found: { email?: string; roles?: string } = {};
          if (trimmed === '') found.email = 'Enter the email address to invite.';
          else if (!EMAIL.test(trimmed)) found.email = 'Enter an email address, such as ada@example.org.';
          if (roles.length > 0 && chosen.length === 0) found.roles = 'Choose at least one role.';
          setErrors(found);
          if (found.email || found.roles) return;
          setSent(null);
          invite.mutate(
            { email: trimmed, roles: chosen },
            {
              onSuccess: ({ body }) => {
                setSent(body.email);
                setEmail('');
                if (roles.length !== 1) setChosen([]);
              },
            },
          );
        }}
      >
        <Stack>
          <Text size="sm">
            They get a mail with a link to choose their name and password. It works once, for a limited time.
          </Text>
          {sent && (
            <Alert color="green" role="status">
              Invitation sent to {sent}.
            </Alert>
          )}
          {problem && (
            <Alert color="red" role="alert">
              {problem.detail}
            </Alert>
          )}
          <TextInput
            label="Email"
            type="email"
            autoComplete="off"
            required
            value={email}
            error={errors.email}
            aria-invalid={errors.email !== undefined}
            onChange={(e) => {
              setEmail(e.currentTarget.value);
              setErrors((current) => ({ ...current, email: undefined }));
            }}
          />
          {roles.length > 0 && (
            <Checkbox.Group
              label="Roles"
              required
              value={chosen}
              onChange={(value) => {
                setChosen(value);
                setErrors((current) => ({ ...current, roles: undefined }));
              }}
              error={errors.roles}
            >
              <Group gap="md" mt={6}>
                {roles.map((role) => (
                  <Checkbox key={role} value={role} label={role} />
                ))}
              </Group>
            </Checkbox.Group>
          )}
          <Button type="submit" loading={invite.isPending} w="fit-content">
            Send the invitation
          </Button>
        </Stack>
      </form>
    </Paper>
  );
}

function Pending({ items, showSender }: { items: Invitation[]; showSender: boolean }) {
  const revoke = useRevokeInvitation();
  const problem = (revoke.error as ApiError | null)?.problem;
  if (items.length === 0) return <Text c="dimmed">No invitation is waiting to be accepted.</Text>;
  return (
    <Stack gap="xs">
      {problem && (
        <Alert color="red" role="alert">
          {problem.detail}
        </Alert>
      )}
      <Table.ScrollContainer minWidth={520}>
        <Table verticalSpacing="xs" aria-label="Pending invitations">
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Email</Table.Th>
              <Table.Th scope="col">Roles</Table.Th>
              {showSender && <Table.Th scope="col">Invited by</Table.Th>}
              <Table.Th scope="col">Expires</Table.Th>
              <Table.Th scope="col">
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {items.map((invitation) => (
              <Table.Tr key={invitation.id}>
                <Table.Td>{invitation.email}</Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    {invitation.roles.map((role) => (
                      <Badge key={role} size="sm" variant="light">
                        {role}
                      </Badge>
                    ))}
                  </Group>
                </Table.Td>
                {showSender && <Table.Td>{invitation.invitedBy.name}</Table.Td>}
                <Table.Td>{formatDay(invitation.expiresAt)}</Table.Td>
                <Table.Td>
                  <Button
                    size="xs"
                    variant="subtle"
                    color="red"
                    aria-label={`Revoke the invitation of ${invitation.email}`}
                    loading={revoke.isPending && revoke.variables === invitation.id}
                    onClick={() => revoke.mutate(invitation.id)}
                  >
                    Revoke
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}
