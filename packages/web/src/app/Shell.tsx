import { AppShell, Burger, Button, Group, Menu, NavLink, Text, Title, UnstyledButton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { Model } from '@ninepoint/spec';
import { Link, Outlet, useLocation, useNavigate } from 'react-router';
import { useMe, useSignOut } from '../api/session.ts';
import { navigation, screenTitle } from './screens.ts';

/** The frame of every page: the product's name, the screens the user may open, and who is signed in. */
export function Shell({ model }: { model: Model }) {
  const [opened, { toggle, close }] = useDisclosure();
  const me = useMe();
  const signOut = useSignOut();
  const navigate = useNavigate();
  const location = useLocation();
  const links = me.data ? navigation(model, me.data) : [];
  const user = me.data?.user ?? null;
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 240, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="lg"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <UnstyledButton component={Link} to="/" aria-label={`${model.product.name}: home`}>
              <Title order={2} size="h4">
                {model.product.name}
              </Title>
            </UnstyledButton>
          </Group>
          {user ? (
            <Menu position="bottom-end" withinPortal>
              <Menu.Target>
                <Button variant="subtle" aria-label={`Signed in as ${user.name}`}>
                  {user.name}
                </Button>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Label>
                  <Text size="xs">{user.email}</Text>
                  {user.roles.length > 0 && <Text size="xs">Roles: {user.roles.join(', ')}</Text>}
                </Menu.Label>
                <Menu.Item onClick={() => signOut.mutate(undefined, { onSuccess: () => navigate('/') })}>
                  Sign out
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
          ) : (
            <Button
              component={Link}
              to={`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`}
              variant="light"
            >
              Sign in
            </Button>
          )}
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Screens">
        {links.map((screen) => (
          <NavLink
            key={screen.route}
            component={Link}
            to={screen.route}
            label={screenTitle(screen, model)}
            active={location.pathname === screen.route}
            onClick={close}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
