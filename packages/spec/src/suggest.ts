import { distance } from 'fastest-levenshtein';

/**
 * Names from `candidates` close enough to `name` to be what the author meant, best first.
 * Case is ignored when measuring; a name within a quarter of its length (at least 1, at most 3
 * edits) counts as close, and only the closest of those are returned.
 */
export function suggest(name: string, candidates: Iterable<string>, limit = 2): string[] {
  const lower = name.toLowerCase();
  const budget = Math.min(3, Math.max(1, Math.floor(name.length / 4)));
  const scored: { candidate: string; d: number }[] = [];
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const d = distance(lower, candidate.toLowerCase());
    if (d <= budget) scored.push({ candidate, d });
  }
  const best = Math.min(...scored.map((s) => s.d));
  return scored
    .filter((s) => s.d === best)
    .sort((a, b) => a.d - b.d || a.candidate.localeCompare(b.candidate))
    .slice(0, limit)
    .map((s) => s.candidate);
}
