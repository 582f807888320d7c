// Where a browser page's time went, for `bench/app-screens.ts` under BENCH_PROFILE: the functions
// with the most samples of their own in a CPU profile (DevTools protocol, `Profiler.stop`), and the
// renderer's main thread by kind of work in a trace (script, style, layout, paint…).

/** The parts of `Profiler.Profile` read here. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

/** The `count` functions with the most time of their own, as lines `ms  name  file:line:column`. */
export function topSelfTimes(profile: CpuProfile, count: number): string {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    // A sample's time is the gap to the next one (the last sample has none).
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const frame = byNode.get(id)?.callFrame;
    if (!frame) return;
    const file = frame.url.replace(/^.*\//, '');
    const key = `${frame.functionName || '(anonymous)'}  ${file}${file ? `:${frame.lineNumber + 1}:${frame.columnNumber + 1}` : ''}`;
    self.set(key, (self.get(key) ?? 0) + ms);
    total += ms;
  });
  const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, count);
  return [
    `  total ${total.toFixed(0)} ms`,
    ...rows.map(([key, ms]) => `  ${ms.toFixed(1).padStart(7)} ms  ${key}`),
  ].join('\n');
}

/** The parts of a Chromium trace event read here (`devtools.timeline` category). */
export interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  args?: { name?: string; data?: { url?: string } };
}

/**
 * The renderer's main thread, from the first to the last task: how long it was busy, and on what
 * (script, style, layout, paint…), as the events directly under its tasks.
 */
export function mainThreadWork(events: TraceEvent[]): string {
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  if (!main) return '  no renderer main thread in the trace';
  const mine = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.dur !== undefined);
  const tasks = mine.filter((e) => e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask');
  const busy = tasks.reduce((sum, t) => sum + (t.dur ?? 0), 0) / 1000;
  const first = Math.min(...tasks.map((t) => t.ts));
  const last = Math.max(...tasks.map((t) => t.ts + (t.dur ?? 0)));
  // The events whose task is the innermost one around them: nothing between them and the task.
  const byName = new Map<string, number>();
  const sorted = mine.filter((e) => !tasks.includes(e)).sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  let end = -1;
  for (const event of sorted) {
    if (event.ts < end) continue;
    end = event.ts + (event.dur ?? 0);
    byName.set(event.name, (byName.get(event.name) ?? 0) + (event.dur ?? 0) / 1000);
  }
  const long = tasks.filter((t) => (t.dur ?? 0) > 50_000).map((t) => ((t.dur ?? 0) / 1000).toFixed(0));
  const rows = [...byName.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10);
  return [
    `  busy ${busy.toFixed(0)} ms of ${((last - first) / 1000).toFixed(0)} ms; tasks over 50 ms: ${long.join(', ') || 'none'}`,
    ...rows.map(([name, ms]) => `  ${ms.toFixed(1).padStart(7)} ms  ${name}`),
  ].join('\n');
}
