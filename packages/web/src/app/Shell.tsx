import {
  Anchor,
  AppShell,
  Avatar,
  Badge,
  Box,
  Burger,
  Button,
  Group,
  Menu,
  NavLink,
  ScrollArea,
  Stack,
  Text,
  UnstyledButton,
  VisuallyHidden,
} from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import type { Model, Screen } from '@ninepoint/spec';
import { useQueryClient } from '@tanstack/react-query';
import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { useDevMode } from '../api/dev.ts';
import { useLiveUpdates } from '../api/live.ts';
import { type Me, useMe, useSignOut } from '../api/session.ts';
import { ABOUT_PATH } from '../home/About.tsx';
import {
  BoardIcon,
  ChartIcon,
  HomeIcon,
  InviteIcon,
  ListIcon,
  PeopleIcon,
  SignOutIcon,
  StudioIcon,
} from '../list/icons.tsx';
import { DELIVERIES_PATH } from '../outbox/api.ts';
import { NotificationBell } from '../outbox/NotificationBell.tsx';
import { USERS_PATH } from '../people/UsersPage.tsx';
import { prefetchScreen, prefetchWhenIdle } from '../screens/route-code.ts';
import { HOVER_INTENT_MS, prefetchScreenData } from '../screens/route-data.ts';
import { navigation, refusal, screenAt, screenDoc, screensOf, screenTitle, screenTitles } from './screens.ts';
import { TWO_FACTOR_PATH } from './TwoFactorPage.tsx';

const MAIN_ID = 'main-content';

/**
 * What a navigation link does when the user shows they mean to open it: its screen's code is
 * fetched on the first sign (pointer over it, focus), and its first data (`prefetchScreenData`)
 * once the pointer or focus has stayed a moment, or at once when it is pressed, so that the
 * screen's calls are on their way while it is being drawn, or answered before.
 */
function useLinkIntent(model: Model, me: Me | undefined) {
  const client = useQueryClient();
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  return (screen: Screen) => {
    const fetchData = () => {
      clearTimeout(timer.current);
      if (me) prefetchScreenData(client, model, me, screen);
    };
    const soon = () => {
      prefetchScreen(screen.kind);
      clearTimeout(timer.current);
      timer.current = setTimeout(fetchData, HOVER_INTENT_MS);
    };
    const cancel = () => clearTimeout(timer.current);
    return {
      onPointerEnter: soon,
      onFocus: soon,
      onPointerLeave: cancel,
      onBlur: cancel,
      onPointerDown: fetchData,
      onKeyDown: (event: KeyboardEvent) => {
        if (event.key === 'Enter') fetchData();
      },
    };
  };
}

/** The frame of every page: the product's name, the screens the user may open, and who is signed in. */
export function Shell({ model }: { model: Model }) {
  const [opened, { toggle, close }] = useDisclosure();
  const mobile = useMediaQuery('(max-width: 48em)', false);
  const me = useMe();
  const location = useLocation();
  // A user whose role requires two-factor sign-in and who has not set it up may open nothing else
  // (the server refuses their calls with TWO_FACTOR_REQUIRED): the app shows only that page.
  const mustEnrol = me.data?.twoFactor?.required === true && !me.data.twoFactor.enabled;
  const links = me.data && !mustEnrol ? navigation(model, me.data) : [];
  const titles = screenTitles(links, model);
  const user = me.data?.user ?? null;
  const dev = useDevMode() === true;
  useLiveUpdates(model, mustEnrol ? null : (user?.id ?? null));
  // Screens a visitor would see once signed in: worth a hint in the navigation.
  const hidden =
    me.data && !user
      ? screensOf(model).filter((s) => s.params.length === 0 && s.kind !== 'form' && refusal(s, me.data) === 'sign-in')
          .length
      : 0;
  useDocumentTitle(model, location.pathname);
  // Every screen's code once the page has drawn, so a first visit to a screen waits for its data only.
  // Detail and form screens are not in the navigation but open from lists: all the model's kinds.
  const kinds = me.data && !mustEnrol ? [...new Set(screensOf(model).map((s) => s.kind))].join(',') : '';
  useEffect(() => (kinds === '' ? undefined : prefetchWhenIdle(kinds.split(',') as Screen['kind'][])), [kinds]);
  const intent = useLinkIntent(model, me.data);

  return (
    <AppShell
      header={{ height: 60 }}
      navbar={{ width: 272, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding={{ base: 'md', sm: 'xl' }}
    >
      <SkipLink />
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap" miw={0}>
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label={opened ? 'Close navigation' : 'Open navigation'}
              aria-expanded={opened}
              aria-controls="app-navigation"
            />
            <Avatar color="indigo" variant="filled" radius="md" size={32} aria-hidden="true">
              {initials(model.product.name)}
            </Avatar>
            <UnstyledButton component={Link} to="/" onClick={close} miw={0} style={{ borderRadius: 6 }}>
              <Text fw={700} size="lg" truncate="end">
                {model.product.name}
              </Text>
            </UnstyledButton>
          </Group>
          {user ? (
            <Group gap="xs" wrap="nowrap">
              {!mustEnrol && <NotificationBell />}
              <UserMenu user={user} />
            </Group>
          ) : me.isPending || location.pathname === '/sign-in' ? null : (
            <Button
              component={Link}
              to={`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`}
              variant="filled"
            >
              Sign in
            </Button>
          )}
        </Group>
      </AppShell.Header>
      <AppShell.Navbar id="app-navigation" aria-label="Main" p="sm" inert={mobile && !opened}>
        <AppShell.Section grow component={ScrollArea}>
          <Stack gap={2}>
            {links.map((screen) => (
              <NavLink
                key={screen.route}
                component={Link}
                to={screen.route}
                label={titles.get(screen) ?? screenTitle(screen, model)}
                description={screen.kind === 'home' ? undefined : screenDoc(screen) || undefined}
                leftSection={<KindIcon screen={screen} />}
                active={isActive(screen, links, location.pathname)}
                aria-current={isActive(screen, links, location.pathname) ? 'page' : undefined}
                onClick={close}
                {...intent(screen)}
                styles={{ description: { whiteSpace: 'normal', opacity: 1 } }}
              />
            ))}
            {!mustEnrol && me.data?.people?.manage && !links.some((s) => s.route === USERS_PATH) && (
              <NavLink
                component={Link}
                to={USERS_PATH}
                label="Users"
                description="Everyone's accounts and roles"
                leftSection={<PeopleIcon size={18} />}
                active={location.pathname === USERS_PATH}
                aria-current={location.pathname === USERS_PATH ? 'page' : undefined}
                onClick={close}
                styles={{ description: { whiteSpace: 'normal', opacity: 1 } }}
              />
            )}
            {!mustEnrol &&
              me.data?.people?.manage &&
              (model.notifications.length > 0 || model.webhooks.length > 0) &&
              !links.some((s) => s.route === DELIVERIES_PATH) && (
                <NavLink
                  component={Link}
                  to={DELIVERIES_PATH}
                  label="Deliveries"
                  description="Mails and calls to other systems"
                  leftSection={<ListIcon size={18} />}
                  active={location.pathname === DELIVERIES_PATH}
                  aria-current={location.pathname === DELIVERIES_PATH ? 'page' : undefined}
                  onClick={close}
                  styles={{ description: { whiteSpace: 'normal', opacity: 1 } }}
                />
              )}
          </Stack>
        </AppShell.Section>
        {!mustEnrol && (me.data?.people?.mayInvite ?? false) && (
          <AppShell.Section pt="sm" style={{ borderTop: '1px solid var(--mantine-color-gray-3)' }}>
            <NavLink
              component={Link}
              to="/invite"
              label="Invite people"
              leftSection={<InviteIcon size={18} />}
              active={location.pathname === '/invite'}
              aria-current={location.pathname === '/invite' ? 'page' : undefined}
              onClick={close}
            />
          </AppShell.Section>
        )}
        {dev && (
          <AppShell.Section pt="sm" style={{ borderTop: '1px solid var(--mantine-color-gray-3)' }}>
            <NavLink
              component={Link}
              to="/studio"
              label="Studio"
              description="Edit the spec; the app follows when you save"
              leftSection={<StudioIcon size={18} />}
              onClick={close}
              styles={{ description: { whiteSpace: 'normal', opacity: 1 } }}
            />
          </AppShell.Section>
        )}
        {hidden > 0 && (
          <AppShell.Section pt="sm">
            <Text size="sm" c="dimmed" px="sm">
              <Anchor
                component={Link}
                to={`/sign-in?next=${encodeURIComponent(location.pathname)}`}
                onClick={close}
                underline="always"
              >
                Sign in
              </Anchor>{' '}
              to see {hidden === 1 ? 'one more screen' : `${hidden} more screens`}.
            </Text>
          </AppShell.Section>
        )}
      </AppShell.Navbar>
      <AppShell.Main id={MAIN_ID} tabIndex={-1} style={{ outline: 'none' }}>
        <Box maw={1280} mx="auto">
          {mustEnrol && location.pathname !== TWO_FACTOR_PATH ? (
            <Navigate
              to={`${TWO_FACTOR_PATH}?next=${encodeURIComponent(location.pathname + location.search)}`}
              replace
            />
          ) : (
            <Outlet />
          )}
        </Box>
      </AppShell.Main>
    </AppShell>
  );
}

/** Off screen until focused: the first Tab stop skips the header and navigation. */
function SkipLink() {
  const [focused, setFocused] = useState(false);
  return (
    <Anchor
      href={`#${MAIN_ID}`}
      onFocus={() => setFocused(true)}
      onBlur={() => setFocused(false)}
      onClick={(event) => {
        event.preventDefault();
        document.getElementById(MAIN_ID)?.focus();
      }}
      style={{
        position: 'fixed',
        left: 8,
        top: 8,
        zIndex: 1000,
        padding: '8px 12px',
        background: 'var(--mantine-color-body)',
        borderRadius: 6,
        boxShadow: 'var(--mantine-shadow-md)',
        transform: focused ? 'none' : 'translateY(-300%)',
      }}
    >
      Skip to content
    </Anchor>
  );
}

function UserMenu({ user }: { user: NonNullable<Me['user']> }) {
  const signOut = useSignOut();
  const navigate = useNavigate();
  return (
    <Menu position="bottom-end" withinPortal width={260}>
      <Menu.Target>
        <UnstyledButton px="xs" py={4} style={{ borderRadius: 8 }}>
          <Group gap="xs" wrap="nowrap">
            <Avatar name={user.name} color="indigo" size={32} aria-hidden="true" />
            <Text size="sm" fw={500} visibleFrom="xs" truncate="end" maw={180} aria-hidden="true">
              {user.name}
            </Text>
            <VisuallyHidden component="span">Account of {user.name}</VisuallyHidden>
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Box px="sm" py="xs">
          <Text size="sm" fw={600}>
            {user.name}
          </Text>
          <Text size="xs" c="dimmed">
            {user.email}
          </Text>
          {user.roles.length > 0 && (
            <Group gap={4} mt={6}>
              {user.roles.map((role) => (
                <Badge key={role} size="xs" variant="light">
                  {role}
                </Badge>
              ))}
            </Group>
          )}
        </Box>
        <Menu.Divider />
        <Menu.Item component={Link} to={TWO_FACTOR_PATH}>
          Two-factor sign-in
        </Menu.Item>
        <Menu.Item
          leftSection={<SignOutIcon size={16} />}
          onClick={() => signOut.mutate(undefined, { onSuccess: () => navigate('/') })}
        >
          Sign out
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

function KindIcon({ screen }: { screen: Screen }) {
  if (screen.kind === 'home') return <HomeIcon size={18} />;
  if (screen.kind === 'board') return <BoardIcon size={18} />;
  if (screen.kind === 'dashboard') return <ChartIcon size={18} />;
  return <ListIcon size={18} />;
}

/** The link of the page shown, or of the list a record was opened from (`/books/…` → Books). */
function isActive(screen: Screen, links: readonly Screen[], pathname: string): boolean {
  if (links.some((s) => s.route === pathname)) return screen.route === pathname;
  if (screen.route === '/') return false;
  const prefixed = links.filter((s) => s.route !== '/' && pathname.startsWith(`${s.route}/`));
  const longest = prefixed.sort((a, b) => b.route.length - a.route.length)[0];
  return longest === screen;
}

function initials(name: string): string {
  const words = name.split(/\s+/).filter((w) => /^[\p{L}\p{N}]/u.test(w));
  return (words.length > 1 ? `${words[0]?.[0] ?? ''}${words[1]?.[0] ?? ''}` : name.slice(0, 2)).toUpperCase();
}

/** The pages of signing in, resetting a password and joining, by path: not screens of the spec. */
const ACCOUNT_PAGE_TITLES: Readonly<Record<string, string>> = {
  '/sign-in': 'Sign in',
  '/forgot-password': 'Forgot your password',
  '/reset-password': 'Choose a new password',
  [USERS_PATH]: 'Users',
  [DELIVERIES_PATH]: 'Deliveries',
  [ABOUT_PATH]: 'About',
  '/sign-up': 'Create an account',
  '/verify-email': 'Confirm your email',
  '/accept-invitation': 'Accept the invitation',
  '/invite': 'Invite people',
  [TWO_FACTOR_PATH]: 'Two-factor sign-in',
};

/** `Books · Lending desk`: the tab and screen readers name the page shown. */
function useDocumentTitle(model: Model, pathname: string) {
  useEffect(() => {
    const screen = screenAt(model, pathname);
    const page =
      ACCOUNT_PAGE_TITLES[pathname] ??
      (screen === undefined ? 'Page not found' : screen.kind === 'home' ? null : screenTitle(screen, model));
    document.title = page ? `${page} · ${model.product.name}` : model.product.name;
  }, [model, pathname]);
}
