import { useLocalStorage } from '@mantine/hooks';
import type { FieldType } from '@ninepoint/spec';
import { startTransition, useEffect, useState } from 'react';
import type { ApiRecord } from '../format.ts';
import type { ListField } from './query.ts';

/** How tall a list's rows are: compact fits a working day's queue on one screen. */
export type Density = 'compact' | 'comfortable';

/** Narrowest and widest a column may be dragged. */
export const MIN_COLUMN = 56;
export const MAX_COLUMN = 640;

/** A column's width in whole pixels between the narrowest and widest a column may be. */
export function clampWidth(width: number): number {
  return Math.round(Math.min(MAX_COLUMN, Math.max(MIN_COLUMN, width)));
}

/**
 * A column's starting width by what it holds: dates, names and badges fit on one line; the title
 * column has none and takes what the others leave.
 */
export function defaultWidth(column: ListField): number {
  // A badge is shown whole: room for its longest value (about 7 px a letter, and its padding).
  if (column.type.kind === 'choice') {
    const longest = Math.max(column.label.length, ...column.type.values.map((v) => v.length));
    return Math.min(240, Math.max(96, 40 + 7 * longest));
  }
  if (column.name === 'state') return 116;
  if (column.name === 'created_at' || column.name === 'updated_at') return 124;
  const type: FieldType = column.type;
  switch (type.kind) {
    case 'reference':
      return 148;
    case 'date':
      return 124;
    case 'datetime':
      return 150;
    case 'integer':
    case 'decimal':
      return 96;
    case 'boolean':
      return 76;
    case 'file':
      return 96;
    case 'email':
    case 'url':
      return 176;
    default:
      return 180;
  }
}

/** Columns of badges keep their width when the others narrow to fit: a badge is never cut. */
export function rigid(column: ListField): boolean {
  return column.type.kind === 'choice';
}

/** Whether a record holds something in a field. */
function filled(value: unknown): boolean {
  return value !== null && value !== undefined && value !== '';
}

/**
 * The columns worth their room on this page: one empty on every row collapses (the title column
 * and the sorted one stay, so a header to click remains); with no rows, all stay.
 */
export function columnsWithValues(
  columns: ListField[],
  records: ApiRecord[],
  keep: ReadonlySet<string>,
): { shown: ListField[]; collapsed: ListField[] } {
  if (records.length === 0) return { shown: columns, collapsed: [] };
  const shown: ListField[] = [];
  const collapsed: ListField[] = [];
  for (const column of columns) {
    if (keep.has(column.name) || records.some((r) => filled(r[column.name]))) shown.push(column);
    else collapsed.push(column);
  }
  return { shown, collapsed };
}

/**
 * A user's own layout of one list: its density and the columns' widths, kept in this browser per
 * user and screen (`ninepoint:list:<user>:<route>`), so each person's queue looks as they left it.
 */
export function useListLayout(user: string | null, route: string) {
  const [layout, setLayout] = useLocalStorage<{ density: Density; widths: Record<string, number> }>({
    key: `ninepoint:list:${user ?? 'visitor'}:${route}`,
    defaultValue: { density: 'compact', widths: {} },
    getInitialValueInEffect: false,
  });
  const density: Density = layout.density === 'comfortable' ? 'comfortable' : 'compact';
  const widths = layout.widths && typeof layout.widths === 'object' ? layout.widths : {};
  return {
    density,
    widths,
    setDensity: (next: Density) => setLayout((current) => ({ ...current, density: next })),
    setWidth: (name: string, width: number) =>
      setLayout((current) => ({
        ...current,
        widths: { ...current.widths, [name]: clampWidth(width) },
      })),
  };
}

/**
 * How many of `count` rows to draw now: the first `first` at once, the rest in a second pass
 * right after the first paint, so a screen shows its top rows without waiting for the whole page.
 */
export function useProgressive(count: number, first: number): number {
  const [all, setAll] = useState(false);
  useEffect(() => {
    if (all || count <= first) return;
    // After the browser has painted the first rows: a frame, then a task.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => startTransition(() => setAll(true)), 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [all, count, first]);
  return all ? count : Math.min(count, first);
}
