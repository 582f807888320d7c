import { Badge, Box, Button, Card, Group, SimpleGrid, Text, TextInput, ThemeIcon, Title } from '@mantine/core';
import type { Model, Screen } from '@ninepoint/spec';
import { useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import type { Me } from '../api/session.ts';
import {
  createScreen,
  entityOf,
  label,
  navigation,
  pluralLabel,
  refusal,
  screenDoc,
  screensOf,
  screenTitles,
} from '../app/screens.ts';
import { BoardIcon, ChartIcon, ListIcon, PlusIcon, SearchIcon } from '../list/icons.tsx';
import { searchableFields } from '../list/query.ts';

/** "What you can do next": the screens the user may open and the records they may create. */
export function NextSteps({ model, me }: { model: Model; me: Me }) {
  const location = useLocation();
  const screens = navigation(model, me).filter((s) => s.kind !== 'home');
  const titles = screenTitles(screens, model);
  const creates = model.entities.flatMap((entity) => {
    const form = createScreen(model, me, entity.name);
    return form ? [{ entity: entity.name, form }] : [];
  });
  const locked = me.user
    ? 0
    : screensOf(model).filter((s) => s.params.length === 0 && s.kind !== 'form' && refusal(s, me) === 'sign-in').length;
  const search = screens.find(
    (s) => s.kind === 'list' && s.filters.length === 0 && searchableFields(entityOf(model, s.entity)).length > 0,
  );

  return (
    <Box component="section" aria-labelledby="next-steps">
      <Title order={2} id="next-steps" size="h3" mb="md">
        What you can do next
      </Title>
      {search && <SearchBox model={model} screen={search} title={titles.get(search) ?? ''} />}
      {creates.length > 0 && (
        <Group gap="sm" mb="lg">
          {creates.map(({ entity, form }) => (
            <Button key={entity} component={Link} to={form.route} leftSection={<PlusIcon size={16} />}>
              New {label(entity).toLowerCase()}
            </Button>
          ))}
        </Group>
      )}
      {screens.length > 0 ? (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
          {screens.map((screen) => (
            <ScreenCard key={screen.route} screen={screen} title={titles.get(screen) ?? ''} />
          ))}
        </SimpleGrid>
      ) : (
        <Text c="dimmed">
          {me.user
            ? 'Your roles open no screens of this product yet.'
            : 'There is nothing to open here without signing in.'}
        </Text>
      )}
      {locked > 0 && (
        <Card withBorder radius="lg" mt="md" padding="md" bg="var(--mantine-color-default-hover)">
          <Group justify="space-between" gap="sm">
            <Text size="sm">
              Signed-in users have {locked === 1 ? 'one more screen' : `${locked} more screens`} here.
            </Text>
            <Button
              component={Link}
              to={`/sign-in?next=${encodeURIComponent(location.pathname)}`}
              variant="light"
              size="sm"
            >
              Sign in
            </Button>
          </Group>
        </Card>
      )}
    </Box>
  );
}

function ScreenCard({ screen, title }: { screen: Screen; title: string }) {
  const doc = screenDoc(screen);
  return (
    <Card
      component={Link}
      to={screen.route}
      withBorder
      radius="lg"
      padding="md"
      style={{ textDecoration: 'none', color: 'inherit' }}
    >
      <Group gap="sm" wrap="nowrap" align="flex-start">
        <ThemeIcon variant="light" radius="md" size={36} aria-hidden="true">
          {screen.kind === 'board' ? <BoardIcon /> : screen.kind === 'dashboard' ? <ChartIcon /> : <ListIcon />}
        </ThemeIcon>
        <Box miw={0}>
          <Group gap={6} wrap="nowrap">
            <Text fw={600}>{title}</Text>
            {screen.kind === 'board' && (
              <Badge size="xs" variant="light" color="gray">
                board
              </Badge>
            )}
          </Group>
          <Text size="sm" c="dimmed" lineClamp={2}>
            {doc ||
              (screen.entity ? `${screen.kind === 'board' ? 'By state: ' : ''}${pluralLabel(screen.entity)}` : '') ||
              (screen.tiles
                ? `Figures: ${[...new Set(screen.tiles.map((t) => pluralLabel(t.entity)))].join(', ')}`
                : '')}
          </Text>
        </Box>
      </Group>
    </Card>
  );
}

/** A search box that opens a searchable list with the text searched. */
function SearchBox({ model, screen, title }: { model: Model; screen: Screen; title: string }) {
  const [text, setText] = useState('');
  const navigate = useNavigate();
  const fields = searchableFields(entityOf(model, screen.entity)).map((f) => label(f.name).toLowerCase());
  return (
    <search aria-label={`Search ${title.toLowerCase()}`}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const q = text.trim();
          navigate(q ? `${screen.route}?q=${encodeURIComponent(q)}` : screen.route);
        }}
      >
        <Group gap="xs" mb="lg" wrap="nowrap" maw={640}>
          <TextInput
            flex={1}
            aria-label={`Search ${title.toLowerCase()}`}
            placeholder={`Search ${title.toLowerCase()} by ${fields.slice(0, 3).join(', ')}${fields.length > 3 ? '…' : ''}`}
            leftSection={<SearchIcon size={16} />}
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            size="md"
          />
          <Button type="submit" size="md" variant="light">
            Search
          </Button>
        </Group>
      </form>
    </search>
  );
}
