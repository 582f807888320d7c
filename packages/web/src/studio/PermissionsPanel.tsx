import { Alert, Badge, Box, Group, Stack, Table, Text, Title } from '@mantine/core';
import { describeCell, type PermissionCell, type PermissionMatrix, type Role } from '@ninepoint/spec';
import { type PermissionMark, peopleWords, permissionMarks } from './permission-marks.ts';

/**
 * Point 6 as the runtime enforces it: a grid of marks with a row per entity and a column per
 * role, the transitions kept to some roles, and how people join and who manages them.
 */
export function PermissionsPanel({ matrix, roles = [] }: { matrix: PermissionMatrix; roles?: readonly Role[] }) {
  if (matrix.rows.length === 0) {
    return (
      <Text size="sm" p="md">
        No entities yet: permissions apply to the entities of point 3.
      </Text>
    );
  }
  return (
    <Stack gap="md" p="md">
      {matrix.derived && (
        <Alert color="gray" variant="light">
          Point 6 is not shown: every signed-in user may do everything, visitors nothing.
        </Alert>
      )}
      <Text size="xs" c="dimmed" id="permission-legend">
        C create, R read, U update, D delete. A filled mark: every record; an outlined one: the role's own records only;
        a dot: not allowed. What narrows a grant (fields, via, while) is written under the marks.
      </Text>
      <Table.ScrollContainer minWidth={matrix.roles.length * 120 + 120}>
        <Table striped withTableBorder withColumnBorders verticalSpacing="xs">
          <Table.Caption>Who may do what with each entity's records (point 6).</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Entity</Table.Th>
              {matrix.roles.map((role) => (
                <Table.Th scope="col" key={role}>
                  {role}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {matrix.rows.map((row) => (
              <Table.Tr key={row.entity}>
                <Table.Th scope="row">{row.entity}</Table.Th>
                {row.cells.map((cell, i) => (
                  <Table.Td key={matrix.roles[i] ?? i}>
                    <MarksCell cell={cell} />
                  </Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Title order={3} size="h5">
        Transitions limited to roles
      </Title>
      {matrix.transitions.length === 0 ? (
        <Text size="sm" c="dimmed">
          None: whoever may update a record may take its transitions.
        </Text>
      ) : (
        <Table withTableBorder verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Entity</Table.Th>
              <Table.Th scope="col">Transition</Table.Th>
              <Table.Th scope="col">Who</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {matrix.transitions.map((t) => (
              <Table.Tr key={`${t.entity} ${t.transition}`}>
                <Table.Td>{t.entity}</Table.Td>
                <Table.Td>{t.transition}</Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    {t.who.map((role) => (
                      <Badge key={role} size="sm" variant="light">
                        {role}
                      </Badge>
                    ))}
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <PeopleTable roles={roles} derived={matrix.derived} />
    </Stack>
  );
}

const LEVEL_WORDS = { all: 'every record', own: 'own records', none: 'not allowed' } as const;

/** The four marks of a cell; its accessible name is the cell in words, as `ninepoint explain` says it. */
function MarksCell({ cell }: { cell: PermissionCell }) {
  const marks = permissionMarks(cell);
  const conditions = marks.filter((m) => m.conditions.length > 0);
  return (
    <Box role="group" aria-label={describeCell(cell)} title={describeCell(cell)}>
      <Group gap={4} wrap="nowrap" aria-hidden="true">
        {marks.map((mark) => (
          <Mark key={mark.letter} mark={mark} />
        ))}
      </Group>
      {conditions.length > 0 && (
        <Text size="xs" c="dimmed" mt={2} aria-hidden="true" style={{ overflowWrap: 'anywhere' }}>
          {conditions.map((m) => `${m.letter} ${m.conditions.join(' ')}`).join('; ')}
        </Text>
      )}
    </Box>
  );
}

function Mark({ mark }: { mark: PermissionMark }) {
  const size = 22;
  const common = {
    width: size,
    height: size,
    borderRadius: 4,
    display: 'inline-flex',
    alignItems: 'center',
    justifyContent: 'center',
    fontSize: 12,
    fontWeight: 700,
    lineHeight: 1,
  } as const;
  if (mark.level === 'none') {
    return (
      <Box
        data-level="none"
        title={`${mark.operation}: ${LEVEL_WORDS.none}`}
        style={{ ...common, color: 'var(--mantine-color-dimmed)' }}
      >
        ·
      </Box>
    );
  }
  const filled = mark.level === 'all';
  return (
    <Box
      data-level={mark.level}
      title={`${mark.operation}: ${LEVEL_WORDS[mark.level]}`}
      style={{
        ...common,
        background: filled ? 'var(--mantine-color-blue-filled)' : 'transparent',
        color: filled ? 'var(--mantine-color-white)' : 'var(--mantine-color-blue-text)',
        border: '2px solid var(--mantine-color-blue-filled)',
      }}
    >
      {mark.letter}
      {mark.conditions.length > 0 ? '*' : ''}
    </Box>
  );
}

/** How people get each role and what it may do with accounts (point 6's joins and people columns). */
function PeopleTable({ roles, derived }: { roles: readonly Role[]; derived: boolean }) {
  const rows = roles.flatMap((role) => {
    const words = peopleWords(role);
    return words ? [{ role: role.name, ...words }] : [];
  });
  return (
    <>
      <Title order={3} size="h5">
        Joining and people
      </Title>
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          {derived
            ? 'Nobody signs up by themselves; every signed-in user may invite and manage people.'
            : 'Nobody signs up by themselves and no role invites or manages people: accounts come from the terminal (ninepoint users add).'}
        </Text>
      ) : (
        <Table withTableBorder verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Role</Table.Th>
              <Table.Th scope="col">Joins</Table.Th>
              <Table.Th scope="col">People</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row) => (
              <Table.Tr key={row.role}>
                <Table.Th scope="row">{row.role}</Table.Th>
                <Table.Td>{row.joins}</Table.Td>
                <Table.Td>{row.people}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </>
  );
}
