import { ActionIcon, Box, Group, Text } from '@mantine/core';
import { type ReactNode, useCallback, useEffect, useRef, useState } from 'react';
import { ChevronLeftIcon, ChevronRightIcon } from '../list/icons.tsx';

/** Which columns are in view: the first and last wholly or mostly seen, and how many there are. */
interface View {
  first: number;
  last: number;
  count: number;
  canLeft: boolean;
  canRight: boolean;
}

/**
 * A board's columns side by side, scrolling sideways with a snap to each column. When they do
 * not all fit, it says so before anyone scrolls: "Columns 1–4 of 7", buttons that bring the
 * previous or next columns into view, and a fade at the edge where more columns are. `names`
 * are the columns' names, in order, for the buttons' labels.
 */
export function BoardScroller({ names, children }: { names: readonly string[]; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const [view, setView] = useState<View | null>(null);

  const measure = useCallback(() => {
    const box = ref.current;
    if (!box) return;
    const columns = [...box.children] as HTMLElement[];
    const left = box.scrollLeft;
    const right = left + box.clientWidth;
    // A column counts as in view when most of it is.
    const seen = columns
      .map((c, i) => ({ i, from: c.offsetLeft - box.offsetLeft, width: c.offsetWidth }))
      .filter(({ from, width }) => Math.min(right, from + width) - Math.max(left, from) >= width * 0.6)
      .map(({ i }) => i);
    const canLeft = left > 1;
    const canRight = right < box.scrollWidth - 1;
    setView({
      first: seen[0] ?? 0,
      last: seen.at(-1) ?? columns.length - 1,
      count: columns.length,
      canLeft,
      canRight,
    });
  }, []);

  useEffect(() => {
    const box = ref.current;
    if (!box) return;
    measure();
    const resized = new ResizeObserver(measure);
    resized.observe(box);
    for (const child of box.children) resized.observe(child);
    box.addEventListener('scroll', measure, { passive: true });
    return () => {
      resized.disconnect();
      box.removeEventListener('scroll', measure);
    };
  }, [measure]);

  const scrollTo = (index: number) => {
    const box = ref.current;
    const column = box?.children[index] as HTMLElement | undefined;
    if (!box || !column) return;
    const reduce = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    box.scrollTo({ left: column.offsetLeft - box.offsetLeft, behavior: reduce ? 'auto' : 'smooth' });
  };
  const overflowing = view !== null && (view.canLeft || view.canRight);
  const previous = view ? Math.max(0, view.first - 1) : 0;
  const next = view ? Math.min(view.count - 1, view.last + 1) : 0;

  return (
    <Box>
      {overflowing && view && (
        <Group justify="space-between" gap="xs" mb="xs" wrap="nowrap">
          <Text size="sm" c="dimmed" aria-live="polite">
            {view.first === view.last
              ? `Column ${view.first + 1} of ${view.count}`
              : `Columns ${view.first + 1}–${view.last + 1} of ${view.count}`}
            {view.canRight && view.count - 1 - view.last > 0 ? `: ${view.count - 1 - view.last} more to the right` : ''}
          </Text>
          <Group gap={6} wrap="nowrap">
            <ActionIcon
              variant="default"
              size="lg"
              disabled={!view.canLeft}
              onClick={() => scrollTo(previous)}
              aria-label={`Show ${names[previous] ?? 'the previous column'}`}
            >
              <ChevronLeftIcon size={18} />
            </ActionIcon>
            <ActionIcon
              variant="default"
              size="lg"
              disabled={!view.canRight}
              onClick={() => scrollTo(next)}
              aria-label={`Show ${names[next] ?? 'the next column'}`}
            >
              <ChevronRightIcon size={18} />
            </ActionIcon>
          </Group>
        </Group>
      )}
      <Box
        ref={ref}
        style={{
          display: 'flex',
          gap: 'var(--mantine-spacing-xs)',
          overflowX: 'auto',
          alignItems: 'stretch',
          scrollSnapType: 'x proximity',
          scrollPaddingInline: 0,
          // The edge where more columns wait fades out: something is there.
          maskImage:
            view?.canRight && view.canLeft
              ? 'linear-gradient(to right, transparent, black 32px, black calc(100% - 48px), transparent)'
              : view?.canRight
                ? 'linear-gradient(to right, black calc(100% - 48px), transparent)'
                : view?.canLeft
                  ? 'linear-gradient(to right, transparent, black 32px)'
                  : undefined,
        }}
        pb="md"
      >
        {children}
      </Box>
    </Box>
  );
}
