import { type RefObject, useLayoutEffect, useState } from 'react';

/** How a list cell falls short of its whole value, which its `title` holds. */
export interface CutCell {
  /** The whole value is not on screen: an ellipsis cuts it, or it is said shorter (a day for a moment). */
  cut: true;
  /** The cell holds a link or button of its own, which takes the keyboard's focus instead. */
  focusable: boolean;
  /** What the cell shows is not the whole value in other words (a host for an address): say it on focus. */
  abbreviated: boolean;
}

const same = (a: ReadonlyMap<string, CutCell>, b: ReadonlyMap<string, CutCell>) =>
  a.size === b.size &&
  [...a].every(([key, cell]) => {
    const other = b.get(key);
    return other?.focusable === cell.focusable && other.abbreviated === cell.abbreviated;
  });

const words = (text: string | null | undefined) => (text ?? '').replace(/\s+/g, ' ').trim();

/**
 * The cells of a table (`td[data-cell]`, keyed by that attribute) that do not show their whole
 * value, measured after each render and whenever the table's size changes: the list makes them
 * reachable by keyboard and gives screen readers their whole value. A cell holding the focus keeps
 * what it was (shown whole, it no longer overflows).
 */
export function useCutCells(table: RefObject<HTMLElement | null>): ReadonlyMap<string, CutCell> {
  const [cells, setCells] = useState<ReadonlyMap<string, CutCell>>(new Map());
  useLayoutEffect(() => {
    const element = table.current;
    if (!element) return;
    const measure = () => {
      const next = new Map<string, CutCell>();
      for (const td of element.querySelectorAll<HTMLElement>('td[data-cell]')) {
        const key = td.dataset.cell ?? '';
        const kept = td.contains(document.activeElement) ? cells.get(key) : undefined;
        if (kept) {
          next.set(key, kept);
          continue;
        }
        const whole = words(td.getAttribute('title'));
        if (whole === '') continue;
        const abbreviated = words(td.textContent) !== whole;
        if (!abbreviated && td.scrollWidth <= td.clientWidth + 1) continue;
        next.set(key, { cut: true, focusable: td.querySelector('a[href], button, input') !== null, abbreviated });
      }
      setCells((before) => (same(before, next) ? before : next));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  });
  return cells;
}
