import { checkSpec } from '@ninepoint/spec';
import { HUGE_TABLE_SPECS, PATHOLOGICAL_SPECS } from '../packages/spec/test/hard-specs.ts';
import { generateSpec } from './generate-spec.ts';

export interface CheckBenchRow {
  entities: number;
  fields: number;
  machines: number;
  kilobytes: number;
  medianMs: number;
  minMs: number;
  msPerEntity: number;
}

/**
 * Times `checkSpec` on generated specs of 1×, 2× and 4× the base size (median of `runs` after
 * two warm-up runs). Linear growth shows as a flat ms-per-entity column.
 */
export function benchCheck(base = 200, runs = 9): CheckBenchRow[] {
  return [1, 2, 4].map((factor) => {
    const entities = base * factor;
    const source = generateSpec(entities);
    const first = checkSpec(source);
    if (!first.ok) throw new Error(`generated spec has errors: ${first.diagnostics[0]?.message}`);
    checkSpec(source);
    const { medianMs, minMs } = timeChecks(source, runs);
    return {
      entities,
      fields: first.model.entities.reduce((n, e) => n + e.fields.length, 0),
      machines: first.model.machines.length,
      kilobytes: Math.round(source.length / 1024),
      medianMs,
      minMs,
      msPerEntity: medianMs / entities,
    };
  });
}

export interface HardSpecRow {
  name: string;
  kilobytes: number;
  medianMs: number;
}

/**
 * Times `checkSpec` on the fuzz suite's huge tables and pathological inputs (median of `runs`
 * after one warm-up): their speed is measured here, while the suite only checks that none hangs.
 */
export function benchHardSpecs(runs = 3): HardSpecRow[] {
  const specs = [
    ...HUGE_TABLE_SPECS.map(([name, build]) => [`5,000 rows of ${name}`, build] as const),
    ...PATHOLOGICAL_SPECS,
  ];
  return specs.map(([name, build]) => {
    const source = build();
    checkSpec(source);
    return { name, kilobytes: Math.round(source.length / 1024), medianMs: timeChecks(source, runs).medianMs };
  });
}

/** The median and fastest of `runs` checks of `source`, in ms (warm-up is the caller's). */
function timeChecks(source: string, runs: number): { medianMs: number; minMs: number } {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    checkSpec(source);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(times.length / 2)] ?? 0, minMs: times[0] ?? 0 };
}
