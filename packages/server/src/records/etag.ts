/**
 * A record's ETag is its version counter, quoted: `"3"`. The counter starts at 1 and every write
 * of the record bumps it, so the tag changes exactly when the record does. It is a strong tag
 * (the same version is the same bytes for the same reader), and it is only meaningful for the
 * record it came with.
 *
 * It is a counter on purpose, not a hash of the record: a hash over fields point 6 hides from the
 * reader (`read except (speaker)`) would let them confirm a guessed value offline. A counter says
 * only that the record changed, which `updated_at` (always visible) says too; and one tag per
 * version keeps `If-Match` working for readers who see different fields of the same version.
 */
export function etagOf(version: number): string {
  return `"${version}"`;
}

const TAG = /^(?:W\/)?"(\d{1,15})"$/;

/**
 * The versions an `If-Match` header allows: null without the header or for `*` (any current
 * record), else the versions of its tags. A tag that is not one of ours matches nothing, so a
 * malformed header refuses the write instead of being ignored. A weak tag (`W/"3"`) is taken
 * as the strong one: some proxies weaken tags on the way back to the client.
 */
export function ifMatchVersions(header: string | string[] | undefined): number[] | null {
  if (header === undefined) return null;
  const text = Array.isArray(header) ? header.join(',') : header;
  if (text.trim() === '*') return null;
  const versions: number[] = [];
  for (const part of text.split(',')) {
    const match = TAG.exec(part.trim());
    if (match?.[1]) versions.push(Number(match[1]));
  }
  return versions;
}
