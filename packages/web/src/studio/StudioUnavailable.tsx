import { Anchor, Code, Container, Paper, Stack, Text, Title } from '@mantine/core';
import { useEffect } from 'react';
import { Link } from 'react-router';

/** The Studio edits the spec file, which only the development server has. */
export function NoStudio() {
  useEffect(() => {
    document.title = 'Studio';
  }, []);
  return (
    <Container size="sm" py="xl" component="main">
      <Paper withBorder p="xl">
        <Stack gap="sm">
          <Title order={1}>Studio</Title>
          <Text>
            The Studio edits the spec this app runs and applies it as you save. It runs under{' '}
            <Code>ninepoint dev &lt;spec.md&gt;</Code>; this server was started with <Code>ninepoint serve</Code>, which
            serves the spec as it is.
          </Text>
          <Anchor component={Link} to="/">
            Go to the home page
          </Anchor>
        </Stack>
      </Paper>
    </Container>
  );
}
