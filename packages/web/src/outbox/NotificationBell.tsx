import {
  ActionIcon,
  Badge,
  Button,
  Group,
  Indicator,
  Popover,
  ScrollArea,
  Stack,
  Text,
  UnstyledButton,
} from '@mantine/core';
import { useMarkRead, useNotifications } from './api.ts';

const BellIcon = () => (
  <svg
    width={20}
    height={20}
    viewBox="0 0 24 24"
    fill="none"
    stroke="currentColor"
    strokeWidth={2}
    strokeLinecap="round"
    strokeLinejoin="round"
    aria-hidden="true"
    focusable="false"
  >
    <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
    <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
  </svg>
);

/**
 * The bell in the header: the signed-in user's notifications (point 7), with the unread count,
 * kept up to date by the live-update stream. Opening one marks it read.
 */
export function NotificationBell() {
  const notifications = useNotifications(true);
  const markRead = useMarkRead();
  const unread = notifications.data?.unread ?? 0;
  const items = notifications.data?.items ?? [];
  const label = unread === 0 ? 'Notifications, none unread' : `Notifications, ${unread} unread`;
  return (
    <Popover position="bottom-end" width={340} withinPortal shadow="md">
      <Popover.Target>
        <ActionIcon variant="subtle" color="gray" size="lg" aria-label={label}>
          <Indicator label={unread > 99 ? '99+' : unread} size={16} disabled={unread === 0} offset={2} color="red">
            <BellIcon />
          </Indicator>
        </ActionIcon>
      </Popover.Target>
      <Popover.Dropdown p={0}>
        <Group justify="space-between" px="sm" py="xs">
          <Text fw={600} size="sm">
            Notifications
          </Text>
          {unread > 0 && (
            <Button size="compact-xs" variant="subtle" onClick={() => markRead.mutate(null)}>
              Mark all read
            </Button>
          )}
        </Group>
        <ScrollArea.Autosize mah={360}>
          {items.length === 0 ? (
            <Text size="sm" c="dimmed" px="sm" pb="sm">
              Nothing yet.
            </Text>
          ) : (
            <Stack gap={0} component="ul" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
              {items.map((n) => (
                <li key={n.id}>
                  <UnstyledButton
                    w="100%"
                    px="sm"
                    py="xs"
                    onClick={() => !n.read && markRead.mutate(n.id)}
                    style={{
                      borderTop: '1px solid var(--mantine-color-gray-2)',
                      background: n.read ? undefined : 'var(--mantine-color-indigo-0)',
                    }}
                  >
                    <Group justify="space-between" wrap="nowrap" align="flex-start">
                      <Text size="sm" fw={n.read ? 400 : 600}>
                        {n.subject}
                      </Text>
                      {!n.read && (
                        <Badge size="xs" variant="filled">
                          new
                        </Badge>
                      )}
                    </Group>
                    <Text size="xs" c="dimmed" lineClamp={3} style={{ whiteSpace: 'pre-line' }}>
                      {n.text}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {new Date(n.at).toLocaleString()}
                    </Text>
                  </UnstyledButton>
                </li>
              ))}
            </Stack>
          )}
        </ScrollArea.Autosize>
      </Popover.Dropdown>
    </Popover>
  );
}
