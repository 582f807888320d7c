import { Alert, Badge, Group, Stack, Table, Text, Title } from '@mantine/core';
import { describeCell, type PermissionMatrix } from '@ninepoint/spec';

/** Point 6 as the runtime enforces it: a row per entity, a column per role, and the transitions kept to some roles. */
export function PermissionsPanel({ matrix }: { matrix: PermissionMatrix }) {
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
      <Table.ScrollContainer minWidth={matrix.roles.length * 140 + 120}>
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
                {row.cells.map((cell, i) => {
                  const text = describeCell(cell);
                  return (
                    <Table.Td key={matrix.roles[i] ?? i} c={text === 'none' ? 'dimmed' : undefined}>
                      {text}
                    </Table.Td>
                  );
                })}
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
    </Stack>
  );
}
