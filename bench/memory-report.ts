// What bench/report-memory.ts writes from inside a benchmark's server, and how bench/rss.ts says it.

/** The server's memory as V8 and Node see it, in MB, and how many full collections V8 has made. */
export interface MemoryReport {
  rss: number;
  /** All of V8's heap spaces: the two generations, and code, large objects, trusted and the rest. */
  heapTotal: number;
  heapUsed: number;
  newSpace: number;
  oldSpace: number;
  external: number;
  majorGcs: number;
}

/**
 * The report as rss.ts prints it after a round. What lies outside V8 is the RSS less all of V8's
 * spaces (`heapTotal`) and external memory: the young and old generations alone leave V8's code,
 * large-object and trusted spaces in it, several MB that are V8's heap all the same.
 */
export function describeMemory(m: Partial<MemoryReport>): string {
  const f = (v: number | undefined) => (v ?? 0).toFixed(0);
  const otherSpaces = (m.heapTotal ?? 0) - (m.newSpace ?? 0) - (m.oldSpace ?? 0);
  const outside = (m.rss ?? 0) - (m.heapTotal ?? 0) - (m.external ?? 0);
  return (
    `V8 young generation ${f(m.newSpace)} MB, old ${f(m.oldSpace)} MB, its other spaces ${f(otherSpaces)} MB, ` +
    `live heap ${f(m.heapUsed)} MB, external ${f(m.external)} MB, outside V8's heap and external ${f(outside)} MB, ` +
    `${f(m.majorGcs)} full collections so far`
  );
}
