import { Alert, Box, Button, Code, Group, Loader, Modal, Paper, Stack, Text, Title } from '@mantine/core';
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

/** `fit`: as large as the pane allows; a number: that many times the drawing's natural size. */
type Zoom = 'fit' | number;
const ZOOM_STEPS = [0.5, 0.75, 1, 1.5, 2, 3, 4] as const;
/** The smallest scale Fit draws at: Mermaid's 16 px labels stay at 12 px or more. */
export const MIN_FIT_SCALE = 0.75;

/** The next zoom step in a direction, from fit taken as 1. */
export function nextZoom(zoom: Zoom, direction: 1 | -1): number {
  const now = zoom === 'fit' ? 1 : zoom;
  const steps = direction > 0 ? ZOOM_STEPS.filter((z) => z > now) : ZOOM_STEPS.filter((z) => z < now).reverse();
  return steps[0] ?? now;
}

function Diagram({ diagram }: { diagram: SpecDiagram }) {
  const [drawing, setDrawing] = useState<Drawing | null>(null);
  const [zoom, setZoom] = useState<Zoom>('fit');
  const [full, setFull] = useState(false);
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

  const what = diagram.kind === 'states' ? 'State diagram' : 'Entity-relationship diagram';
  const label = `${what}: ${diagram.title}`;
  return (
    <Paper withBorder p="md" component="figure" m={0}>
      <Group justify="space-between" wrap="nowrap" mb="xs">
        <Title order={3} size="h5" component="figcaption">
          {diagram.title}
        </Title>
        {drawing?.svg && (
          <Group gap={4} wrap="nowrap">
            <ZoomButtons zoom={zoom} setZoom={setZoom} title={diagram.title} />
            <Button size="compact-xs" variant="default" onClick={() => setFull(true)}>
              Full screen
            </Button>
          </Group>
        )}
      </Group>
      {drawing === null ? (
        <Loader size="sm" aria-label={`Drawing ${diagram.title}`} />
      ) : drawing.error !== null ? (
        <Alert color="red" title="This diagram could not be drawn">
          <Text size="sm">{drawing.error}</Text>
        </Alert>
      ) : (
        <DiagramView svg={drawing.svg} zoom={zoom} label={label} fitHeight={460} />
      )}
      {drawing?.svg && (
        <Modal opened={full} onClose={() => setFull(false)} fullScreen title={diagram.title}>
          <Stack gap="xs">
            <Group gap={4}>
              <ZoomButtons zoom={zoom} setZoom={setZoom} title={diagram.title} />
            </Group>
            <DiagramView svg={drawing.svg} zoom={zoom} label={label} fitHeight={null} />
          </Stack>
        </Modal>
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

function ZoomButtons({ zoom, setZoom, title }: { zoom: Zoom; setZoom: (zoom: Zoom) => void; title: string }) {
  return (
    <>
      <Button
        size="compact-xs"
        variant="default"
        aria-label={`Zoom out of ${title}`}
        disabled={zoom !== 'fit' && zoom <= (ZOOM_STEPS[0] ?? 0)}
        onClick={() => setZoom(nextZoom(zoom, -1))}
      >
        −
      </Button>
      <Text size="xs" w={44} ta="center" aria-live="polite">
        {zoom === 'fit' ? 'Fit' : `${Math.round(zoom * 100)}%`}
      </Text>
      <Button
        size="compact-xs"
        variant="default"
        aria-label={`Zoom into ${title}`}
        disabled={zoom !== 'fit' && zoom >= (ZOOM_STEPS.at(-1) ?? 0)}
        onClick={() => setZoom(nextZoom(zoom, 1))}
      >
        +
      </Button>
      <Button size="compact-xs" variant="default" disabled={zoom === 'fit'} onClick={() => setZoom('fit')}>
        Fit
      </Button>
    </>
  );
}

/** Mermaid's drawing at a zoom: fitted to the pane (and `fitHeight`), or its natural size times the zoom, scrolled. */
function DiagramView({
  svg,
  zoom,
  label,
  fitHeight,
}: {
  svg: string;
  zoom: Zoom;
  label: string;
  fitHeight: number | null;
}) {
  const figure = useRef<HTMLDivElement>(null);
  // Mermaid draws at its natural size (an entity diagram can be taller than the pane): fit or scale it.
  useEffect(() => {
    const drawn = svg ? figure.current?.querySelector('svg') : null;
    if (!drawn) return;
    const natural = drawn.viewBox.baseVal?.width || drawn.getBoundingClientRect().width;
    drawn.style.display = 'block';
    drawn.style.margin = zoom === 'fit' ? '0 auto' : '0';
    drawn.style.height = 'auto';
    if (zoom === 'fit') {
      // Fit the pane's width, but never below a size whose text reads: a wide or tall diagram
      // scrolls instead of shrinking its labels to a few pixels (min-width wins over max-width).
      drawn.style.width = `${Math.round(natural)}px`;
      drawn.style.maxWidth = '100%';
      drawn.style.minWidth = `${Math.round(natural * MIN_FIT_SCALE)}px`;
      drawn.style.maxHeight = 'none';
    } else {
      drawn.style.minWidth = '';
      drawn.style.width = `${Math.round(natural * zoom)}px`;
      drawn.style.maxWidth = 'none';
      drawn.style.maxHeight = 'none';
    }
  }, [svg, zoom]);
  return (
    <Box
      ref={figure}
      role="img"
      aria-label={label}
      className="studio-diagram"
      data-zoom={zoom}
      style={{ overflow: 'auto', maxHeight: fitHeight === null ? 'calc(100vh - 140px)' : `${fitHeight}px` }}
      // Mermaid's output under securityLevel 'strict', sanitized by its DOMPurify.
      // biome-ignore lint/security/noDangerouslySetInnerHtml: the SVG is Mermaid's sanitized drawing.
      dangerouslySetInnerHTML={{ __html: svg }}
    />
  );
}
