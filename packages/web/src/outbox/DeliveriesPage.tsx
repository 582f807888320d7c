import {
  Alert,
  Badge,
  Button,
  Group,
  SegmentedControl,
  Stack,
  Table,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { useState } from 'react';
import { useMe } from '../api/session.ts';
import { Failure, Loading, NotAllowed } from '../app/pages.tsx';
import { type Delivery, useDeliveries, useRetryDelivery } from './api.ts';

const STATUS_COLOR: Record<Delivery['status'], string> = { pending: 'yellow', delivered: 'green', dead: 'red' };
const when = (at: string | null) => (at === null ? '—' : new Date(at).toLocaleString());

/** `/deliveries`: every notification and call to another system, for those who manage people. */
export function DeliveriesRoute() {
  const me = useMe();
  if (me.isPending) return <Loading what="Loading the deliveries" />;
  if (me.isError) return <Failure error={me.error} retry={() => void me.refetch()} />;
  if (me.data.user === null) return <NotAllowed reason="sign-in" />;
  if (!me.data.people?.manage) return <NotAllowed reason="forbidden" />;
  return <DeliveriesPage />;
}

function DeliveriesPage() {
  const [status, setStatus] = useState<Delivery['status'] | 'all'>('all');
  const deliveries = useDeliveries(status === 'all' ? null : status);
  const retry = useRetryDelivery();
  if (deliveries.isPending) return <Loading what="Loading the deliveries" />;
  if (deliveries.isError) return <Failure error={deliveries.error} retry={() => void deliveries.refetch()} />;
  const { items, counts, unconfigured } = deliveries.data;
  return (
    <Stack gap="md">
      <Title order={1}>Deliveries</Title>
      <Text c="dimmed">Every mail and call to another system the app made or is making, newest first.</Text>
      {unconfigured.map((sentence) => (
        <Alert key={sentence} color="yellow" variant="light">
          {sentence}
        </Alert>
      ))}
      <SegmentedControl
        value={status}
        onChange={(value) => setStatus(value as typeof status)}
        aria-label="Show"
        data={[
          { value: 'all', label: 'All' },
          { value: 'pending', label: `Pending (${counts.pending})` },
          { value: 'delivered', label: `Delivered (${counts.delivered})` },
          { value: 'dead', label: `Dead (${counts.dead})` },
        ]}
      />
      {items.length === 0 ? (
        <Text>No deliveries{status === 'all' ? '' : ` ${status}`}.</Text>
      ) : (
        <Table.ScrollContainer minWidth={900}>
          <Table striped highlightOnHover aria-label="Deliveries">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Event</Table.Th>
                <Table.Th>Target</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Attempts</Table.Th>
                <Table.Th>Last answer</Table.Th>
                <Table.Th>Next try</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((d) => (
                <Table.Tr key={d.id}>
                  <Table.Td>
                    <Text size="sm">{eventWords(d)}</Text>
                    <Text size="xs" c="dimmed">
                      {when(d.at)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{d.kind === 'call' ? 'Call' : 'Notification'}</Text>
                    <Text size="xs" c="dimmed">
                      {d.target}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Badge color={STATUS_COLOR[d.status]} variant="light">
                      {d.status}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{d.attempts}</Table.Td>
                  <Table.Td>
                    <Text size="sm">{d.lastAt === null ? '—' : (d.lastCode ?? (d.lastError ? 'failed' : 'sent'))}</Text>
                    <Text size="xs" c="dimmed">
                      {d.lastError ?? when(d.lastAt)}
                    </Text>
                  </Table.Td>
                  <Table.Td>{when(d.nextAt)}</Table.Td>
                  <Table.Td>
                    {d.status !== 'delivered' && (
                      <Group justify="flex-end">
                        <Button
                          size="compact-sm"
                          variant="light"
                          loading={retry.isPending && retry.variables === d.id}
                          onClick={() => retry.mutate(d.id)}
                          aria-label={`Retry now: ${d.kind} ${d.target} of ${eventWords(d)}`}
                        >
                          Retry now
                        </Button>
                      </Group>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}

/** `Ticket assign`, or `schedule daily digest` for a call a scheduled job set off (no record). */
function eventWords(d: { event: string; entity: string; recordId: string; transition: string | null }): string {
  return d.event === 'schedule' ? `schedule ${d.recordId}` : `${d.entity} ${d.transition ?? d.event}`;
}
