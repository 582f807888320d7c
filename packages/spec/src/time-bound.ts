import { Environment } from '@marcbachmann/cel-js';
import type { Constant } from './model.ts';

/**
 * What a condition over time implies of one of the record's times: it can hold only when
 * `field` is at or before `now` minus `seconds`. `now > due` gives `due`, 0 s;
 * `now - created_at > SLA_RESPONSE` gives `created_at`, the constant's seconds.
 */
export interface TimeBound {
  field: string;
  seconds: number;
}

interface Node {
  op: string;
  args: unknown;
}

const parser = new Environment({ unlistedVariablesAreDyn: true });

/**
 * The time bound a condition implies, for finding the records it may hold for with one indexed
 * comparison; null when it implies none this reading recognises (then every record in the
 * from-states is a candidate). Recognised: `now > f`, `f < now` (and `>=`, `<=`),
 * `now - f > D` and `D < now - f` with D a duration constant or `duration("…")`; `a && b` takes
 * either side's bound, `a || b` and `c ? a : b` the weaker of two bounds on the same field.
 */
export function timeBound(condition: string, constants: readonly Constant[]): TimeBound | null {
  let ast: Node;
  try {
    ast = (parser.parse(condition) as unknown as { ast: Node }).ast;
  } catch {
    return null;
  }
  const durations = new Map(constants.filter((c) => c.type === 'duration').map((c) => [c.name, Number(c.value)]));
  return boundOf(ast, durations);
}

function boundOf(node: Node, durations: ReadonlyMap<string, number>): TimeBound | null {
  const args = Array.isArray(node.args) ? (node.args as Node[]) : [];
  switch (node.op) {
    case '&&': {
      const [a, b] = args.map((n) => boundOf(n, durations));
      if (a && b && a.field === b.field) return a.seconds >= b.seconds ? a : b;
      return a ?? b ?? null;
    }
    case '||':
      return weaker(boundOf(args[0] as Node, durations), boundOf(args[1] as Node, durations));
    case '?:':
      return weaker(boundOf(args[1] as Node, durations), boundOf(args[2] as Node, durations));
    case '>':
    case '>=':
      return compared(args[0] as Node, args[1] as Node, durations);
    case '<':
    case '<=':
      return compared(args[1] as Node, args[0] as Node, durations);
    default:
      return null;
  }
}

/** `greater > lesser`: `now > f`, or `now - f > D`. */
function compared(greater: Node, lesser: Node, durations: ReadonlyMap<string, number>): TimeBound | null {
  if (isId(greater, 'now')) {
    const field = fieldOf(lesser);
    return field === null ? null : { field, seconds: 0 };
  }
  if (greater.op === '-' && Array.isArray(greater.args)) {
    const [left, right] = greater.args as Node[];
    const field = right ? fieldOf(right) : null;
    const seconds = durationOf(lesser, durations);
    if (left && isId(left, 'now') && field !== null && seconds !== null) return { field, seconds };
  }
  return null;
}

function weaker(a: TimeBound | null, b: TimeBound | null): TimeBound | null {
  if (!a || !b || a.field !== b.field) return null;
  return a.seconds <= b.seconds ? a : b;
}

function isId(node: Node, name: string): boolean {
  return node.op === 'id' && node.args === name;
}

function fieldOf(node: Node): string | null {
  return node.op === 'id' && typeof node.args === 'string' && /^[a-z]/.test(node.args) && node.args !== 'now'
    ? node.args
    : null;
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600 };

function durationOf(node: Node, durations: ReadonlyMap<string, number>): number | null {
  if (node.op === 'id' && typeof node.args === 'string') return durations.get(node.args) ?? null;
  if (node.op === 'call' && Array.isArray(node.args) && node.args[0] === 'duration') {
    const [literal] = (node.args[1] ?? []) as Node[];
    const text = literal?.op === 'value' ? String(literal.args) : '';
    const match = /^(\d+(?:\.\d+)?)(h|m|s)$/.exec(text);
    return match ? Number(match[1]) * (UNITS[match[2] ?? 's'] ?? 1) : null;
  }
  return null;
}
