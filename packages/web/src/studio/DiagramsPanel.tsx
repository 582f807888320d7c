import { Alert, Box, Code, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import type { SpecDiagram } from '@ninepoint/spec';
import { useEffect, useRef, useState } from 'react';
import { drawDiagram } from './mermaid.ts';

/** The entity-relationship diagram and a state diagram per state machine, drawn from the text being edited. */
export function DiagramsPanel({ diagrams }: { diagrams: readonly SpecDiagram[] }) {
  if (diagrams.length === 0) {
    return (
      <Text size="sm" p="md">
        No diagrams yet: they appear when point 3 has an entity or point 4 a state machine.
      </Text>
    );
  }
  return (
    <Stack gap="md" p="md">
      {diagrams.map((diagram) => (
        <Diagram key={diagram.title} diagram={diagram} />
      ))}
    </Stack>
  );
}

type Drawing = { svg: string; error: null } | { svg: null; error: string };

function Diagram({ diagram }: { diagram: SpecDiagram }) {
  const [drawing, setDrawing] = useState<Drawing | null>(null);
  const figure = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let current = true;
    drawDiagram(diagram.mermaid).then(
      (svg) => current && setDrawing({ svg, error: null }),
      (error: unknown) =>
        current && setDrawing({ svg: null, error: error instanceof Error ? error.message : String(error) }),
    );
    // A newer text may be drawn before an older one finishes: only the latest is shown.
    return () => {
      current = false;
    };
  }, [diagram.mermaid]);

  // Mermaid draws at its natural size (an entity diagram can be taller than the pane): fit it.
  useEffect(() => {
    const svg = drawing?.svg ? figure.current?.querySelector('svg') : null;
    if (!svg) return;
    svg.style.maxWidth = '100%';
    svg.style.maxHeight = '460px';
    svg.style.height = 'auto';
    svg.style.display = 'block';
    svg.style.margin = '0 auto';
  }, [drawing]);

  const what = diagram.kind === 'states' ? 'State diagram' : 'Entity-relationship diagram';
  return (
    <Paper withBorder p="md" component="figure" m={0}>
      <Title order={3} size="h5" mb="xs" component="figcaption">
        {diagram.title}
      </Title>
      {drawing === null ? (
        <Loader size="sm" aria-label={`Drawing ${diagram.title}`} />
      ) : drawing.error !== null ? (
        <Alert color="red" title="This diagram could not be drawn">
          <Text size="sm">{drawing.error}</Text>
        </Alert>
      ) : (
        <Box
          ref={figure}
          role="img"
          aria-label={`${what}: ${diagram.title}`}
          className="studio-diagram"
          style={{ overflowX: 'auto' }}
          // Mermaid's output under securityLevel 'strict', sanitized by its DOMPurify.
          // biome-ignore lint/security/noDangerouslySetInnerHtml: the SVG is Mermaid's sanitized drawing.
          dangerouslySetInnerHTML={{ __html: drawing.svg }}
        />
      )}
      <Box component="details" mt="xs">
        <Text component="summary" size="xs" c="dimmed" style={{ cursor: 'pointer' }}>
          Mermaid text
        </Text>
        <Code block mt={4} fz="xs">
          {diagram.mermaid}
        </Code>
      </Box>
    </Paper>
  );
}
