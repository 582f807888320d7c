import {
  Alert,
  Badge,
  Button,
  Drawer,
  Group,
  Modal,
  MultiSelect,
  Pagination,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Timeline,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { useDebouncedValue, useMediaQuery } from '@mantine/hooks';
import { ANYONE, type Model } from '@ninepoint/spec';
import { useState } from 'react';
import { Link } from 'react-router';
import type { ApiError } from '../api/client.ts';
import { useRemoveUserPasskey, useUserPasskeys } from '../api/passkeys.ts';
import { ACCOUNTS_PER_PAGE, type Account, useAccountHistory, useAccounts, useChangeAccount } from '../api/people.ts';
import type { Me } from '../api/session.ts';
import { useResetTwoFactor } from '../api/two-factor.ts';
import { Failure, Loading } from '../app/pages.tsx';
import { formatDateTime, formatRelative } from '../fields/display.ts';
import { eventTitle } from './events.ts';

/** The path of the Users screen, which every app has for those whose roles manage people. */
export const USERS_PATH = '/users';
/** The page where someone who may invite people does so (see h4's invitations). */
export const INVITE_PATH = '/invite';

/**
 * The Users screen: every account with its email, roles and status, for those whose roles manage
 * people (point 6's `people` column). They search, change roles, deactivate and reactivate
 * (each after a confirmation), and read an account's history.
 */
export function UsersPage({ model, me }: { model: Model; me: Me }) {
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 250);
  const [page, setPage] = useState(1);
  const accounts = useAccounts(q, (page - 1) * ACCOUNTS_PER_PAGE);
  const [editing, setEditing] = useState<Account | null>(null);
  const [toggling, setToggling] = useState<Account | null>(null);
  const [viewing, setViewing] = useState<Account | null>(null);
  const [resetting, setResetting] = useState<Account | null>(null);
  const phone = useMediaQuery('(max-width: 48em)', false);
  const roles = model.roles.map((r) => r.name).filter((r) => r !== ANYONE);
  const pages = Math.max(1, Math.ceil((accounts.data?.total ?? 0) / ACCOUNTS_PER_PAGE));
  const selfId = me.user?.id ?? null;

  const actions = {
    roles: roles.length > 0 ? setEditing : null,
    toggle: setToggling,
    history: setViewing,
    resetTwoFactor: setResetting,
  };

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
        <div>
          <Title order={1}>Users</Title>
          <Text c="dimmed" size="sm">
            Everyone who has an account: their roles, and whether they may sign in.
          </Text>
        </div>
        {me.people?.mayInvite && (
          <Button component={Link} to={INVITE_PATH} variant="filled">
            Invite people
          </Button>
        )}
      </Group>
      <TextInput
        label="Search"
        placeholder="Name or email"
        type="search"
        value={search}
        onChange={(event) => {
          setSearch(event.currentTarget.value);
          setPage(1);
        }}
        maw={420}
      />
      {accounts.isPending ? (
        <Loading what="Loading the users" />
      ) : accounts.isError ? (
        <Failure error={accounts.error} retry={() => void accounts.refetch()} />
      ) : accounts.data.items.length === 0 ? (
        <Text c="dimmed">{q === '' ? 'There are no users yet.' : `No user’s name or email contains “${q}”.`}</Text>
      ) : phone ? (
        <Stack gap="sm" aria-label="Users" role="list">
          {accounts.data.items.map((account) => (
            <Paper key={account.id} withBorder p="sm" role="listitem">
              <Stack gap={6}>
                <Who account={account} self={account.id === selfId} />
                <Group gap={6}>
                  <Status account={account} />
                  <Roles roles={account.roles} />
                </Group>
                <Actions account={account} self={account.id === selfId} actions={actions} />
              </Stack>
            </Paper>
          ))}
        </Stack>
      ) : (
        <Table striped highlightOnHover verticalSpacing="sm" aria-label="Users">
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Name</Table.Th>
              <Table.Th scope="col">Roles</Table.Th>
              <Table.Th scope="col">Status</Table.Th>
              <Table.Th scope="col">
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {accounts.data.items.map((account) => (
              <Table.Tr key={account.id}>
                <Table.Td>
                  <Who account={account} self={account.id === selfId} />
                </Table.Td>
                <Table.Td>
                  <Roles roles={account.roles} />
                </Table.Td>
                <Table.Td>
                  <Status account={account} />
                </Table.Td>
                <Table.Td>
                  <Actions account={account} self={account.id === selfId} actions={actions} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {pages > 1 && (
        <Pagination
          total={pages}
          value={page}
          onChange={setPage}
          getControlProps={(control) => ({ 'aria-label': `${control} page` })}
          getItemProps={(n) => ({ 'aria-label': `Page ${n}` })}
        />
      )}
      {editing && <RolesDialog account={editing} roles={roles} onClose={() => setEditing(null)} />}
      {toggling && <StatusDialog account={toggling} onClose={() => setToggling(null)} />}
      {resetting && <ResetTwoFactorDialog account={resetting} onClose={() => setResetting(null)} />}
      <HistoryDrawer account={viewing} onClose={() => setViewing(null)} />
    </Stack>
  );
}

function Who({ account, self }: { account: Account; self: boolean }) {
  return (
    <div style={{ minWidth: 0 }}>
      <Text fw={600} size="sm" style={{ overflowWrap: 'anywhere' }}>
        {account.name}
        {self && (
          <Text span c="dimmed" size="sm" fw={400}>
            {' '}
            (you)
          </Text>
        )}
      </Text>
      <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
        {account.email}
      </Text>
    </div>
  );
}

function Roles({ roles }: { roles: string[] }) {
  if (roles.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        No roles
      </Text>
    );
  }
  return (
    <Group gap={4}>
      {roles.map((role) => (
        <Badge key={role} variant="light" color="indigo" tt="none">
          {role}
        </Badge>
      ))}
    </Group>
  );
}

function Status({ account }: { account: Account }) {
  const twoFactor = account.twoFactor === true && (
    <Badge variant="light" color="indigo" tt="none">
      Two-factor
    </Badge>
  );
  return account.active ? (
    <Group gap={4}>
      <Badge variant="light" color="green" tt="none">
        Active
      </Badge>
      {twoFactor}
    </Group>
  ) : (
    <Group gap={4}>
      <Badge variant="light" color="gray" tt="none" title={`Since ${formatDateTime(account.deactivatedAt ?? '')}`}>
        Deactivated
      </Badge>
      {twoFactor}
    </Group>
  );
}

interface RowActions {
  roles: ((account: Account) => void) | null;
  toggle: (account: Account) => void;
  history: (account: Account) => void;
  resetTwoFactor: (account: Account) => void;
}

function Actions({ account, self, actions }: { account: Account; self: boolean; actions: RowActions }) {
  const who = `${account.name} (${account.email})`;
  return (
    <Group gap={6} wrap="wrap">
      {actions.roles && (
        <Button size="xs" variant="light" onClick={() => actions.roles?.(account)} aria-label={`Edit roles of ${who}`}>
          Edit roles
        </Button>
      )}
      {!self && (
        <Button
          size="xs"
          variant="light"
          color={account.active ? 'red' : 'green'}
          onClick={() => actions.toggle(account)}
          aria-label={`${account.active ? 'Deactivate' : 'Reactivate'} ${who}`}
        >
          {account.active ? 'Deactivate' : 'Reactivate'}
        </Button>
      )}
      {!self && account.twoFactor === true && (
        <Button
          size="xs"
          variant="subtle"
          onClick={() => actions.resetTwoFactor(account)}
          aria-label={`Reset two-factor sign-in of ${who}`}
        >
          Reset two-factor
        </Button>
      )}
      <Button size="xs" variant="subtle" onClick={() => actions.history(account)} aria-label={`History of ${who}`}>
        History
      </Button>
    </Group>
  );
}

function RolesDialog({ account, roles, onClose }: { account: Account; roles: string[]; onClose: () => void }) {
  const [chosen, setChosen] = useState<string[]>(account.roles.filter((r) => roles.includes(r)));
  const change = useChangeAccount();
  const problem = (change.error as ApiError | null)?.problem;
  return (
    <Modal opened onClose={onClose} title={`Roles of ${account.name}`} centered>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          change.mutate({ id: account.id, roles: chosen }, { onSuccess: onClose });
        }}
      >
        <Stack>
          <MultiSelect
            label="Roles"
            description="What they may do from their next page on."
            data={roles}
            value={chosen}
            onChange={setChosen}
            comboboxProps={{ withinPortal: true }}
            data-autofocus
          />
          {problem && (
            <Alert color="red" title={problem.title} role="alert">
              {problem.errors?.[0]?.message ?? problem.detail}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={change.isPending}>
              Save roles
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function StatusDialog({ account, onClose }: { account: Account; onClose: () => void }) {
  const change = useChangeAccount();
  const problem = (change.error as ApiError | null)?.problem;
  const deactivate = account.active;
  return (
    <Modal
      opened
      onClose={onClose}
      title={deactivate ? `Deactivate ${account.name}?` : `Reactivate ${account.name}?`}
      centered
    >
      <Stack>
        <Text size="sm">
          {deactivate
            ? `${account.name} (${account.email}) will be signed out everywhere at once, and cannot sign in again or reset their password until reactivated. Their records, and their name on them, stay.`
            : `${account.name} (${account.email}) may sign in again with their password.`}
        </Text>
        {problem && (
          <Alert color="red" title={problem.title} role="alert">
            {problem.detail}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} data-autofocus>
            Cancel
          </Button>
          <Button
            color={deactivate ? 'red' : 'green'}
            loading={change.isPending}
            onClick={() => change.mutate({ id: account.id, active: !deactivate }, { onSuccess: onClose })}
          >
            {deactivate ? 'Deactivate' : 'Reactivate'}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function ResetTwoFactorDialog({ account, onClose }: { account: Account; onClose: () => void }) {
  const reset = useResetTwoFactor();
  const problem = (reset.error as ApiError | null)?.problem;
  return (
    <Modal opened onClose={onClose} title={`Reset two-factor sign-in of ${account.name}?`} centered>
      <Stack>
        <Text size="sm">
          {`If ${account.name} (${account.email}) lost their phone and recovery codes: their two-factor sign-in is turned off and their recovery codes stop working, so they sign in with their password alone (and set it up again if their role requires it). Their history records that you did it.`}
        </Text>
        {problem && (
          <Alert color="red" title={problem.title} role="alert">
            {problem.detail}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} data-autofocus>
            Cancel
          </Button>
          <Button
            color="red"
            loading={reset.isPending}
            onClick={() => reset.mutate(account.id, { onSuccess: onClose })}
          >
            Reset two-factor
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function HistoryDrawer({ account, onClose }: { account: Account | null; onClose: () => void }) {
  const history = useAccountHistory(account?.id ?? null);
  return (
    <Drawer
      opened={account !== null}
      onClose={onClose}
      position="right"
      size="md"
      title={account ? `History of ${account.name}` : 'History'}
    >
      {account === null ? null : history.isPending ? (
        <Loading what="Loading the history" />
      ) : history.isError ? (
        <Failure error={history.error} retry={() => void history.refetch()} />
      ) : history.data.length === 0 ? (
        <Text c="dimmed">Nothing has happened to this account yet.</Text>
      ) : (
        <Timeline active={history.data.length - 1} bulletSize={14} lineWidth={2}>
          {[...history.data].reverse().map((event) => (
            <Timeline.Item key={event.id} title={eventTitle(event)}>
              <Text size="xs" c="dimmed">
                {event.by ? event.by.name : 'At the server’s terminal'} ·{' '}
                <time dateTime={event.at} title={formatDateTime(event.at)}>
                  {formatRelative(event.at)}
                </time>
              </Text>
            </Timeline.Item>
          ))}
        </Timeline>
      )}
      {account !== null && <UserPasskeys account={account} />}
    </Drawer>
  );
}

/** In the history drawer: the user's passkeys, each removable (a lost device). */
function UserPasskeys({ account }: { account: Account }) {
  const passkeys = useUserPasskeys(account.id);
  const remove = useRemoveUserPasskey(account.id);
  if (!passkeys.data || passkeys.data.length === 0) return null;
  return (
    <Stack mt="lg" gap="xs">
      <Title order={3} size="h5">
        Passkeys
      </Title>
      {passkeys.data.map((passkey) => (
        <Group key={passkey.id} gap="sm">
          <Text size="sm">{passkey.name}</Text>
          <Button
            size="compact-xs"
            color="red"
            variant="subtle"
            aria-label={`Remove passkey ${passkey.name} of ${account.name}`}
            loading={remove.isPending && remove.variables === passkey.id}
            onClick={() => remove.mutate(passkey.id)}
          >
            Remove
          </Button>
        </Group>
      ))}
    </Stack>
  );
}
