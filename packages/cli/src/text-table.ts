/** Rows as columns two spaces apart under a header line, for people (lists offer `--json` for programs). */
export function formatColumns(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return `${[header, ...rows].map(line).join('\n')}\n`;
}

/** A moment for people, to the minute in UTC: `2026-05-01 09:30 UTC`. */
export function formatTime(at: string | number): string {
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? String(at) : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
