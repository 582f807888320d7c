// The API benchmark's spec as a visitor's call needs it (issue 31): point 6 a roles table instead
// of "not shown" (which lets visitors do nothing).

/** Point 6 of bench/api-bench.spec.md as written there: the sentence `visitorSpec` replaces. */
const NOT_SHOWN = /^(## 6\. Roles and permissions\n\n)Not shown:[^\n]*\n/m;

/**
 * The benchmark's spec (bench/api-bench.spec.md, given as text) with point 6 a roles table:
 * `anyone` reads Customer and Order, a signed-in `clerk` does everything. The `visitor` server of
 * `npm run bench -- api` runs on it, so that a call without any credential reads what the token
 * and session calls read. Derived rather than kept as a second file, so that the two specs differ
 * in point 6 only; throws when point 6 is no longer the sentence it replaces.
 */
export function visitorSpec(spec: string): string {
  if (!NOT_SHOWN.test(spec))
    throw new Error('api-bench.spec.md: point 6 is not the "Not shown: …" sentence visitorSpec replaces');
  const roles = [
    '| role   | Customer | Order | meaning                                          |',
    '| ------ | -------- | ----- | ------------------------------------------------ |',
    '| clerk  | all      | all   | the sales team                                   |',
    '| anyone | read     | read  | visitors: the benchmark reads with no credential |',
  ].join('\n');
  return spec.replace(NOT_SHOWN, `$1${roles}\n`);
}
