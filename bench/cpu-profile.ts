// `node bench/cpu-profile.ts <file.cpuprofile> [answers]`: where a server's CPU time went, from a
// profile written with `BENCH_CPU_PROF=<dir> npm run bench -- api`. Prints self time by package or
// source file, then by function (self time, then total time: the function and what it called);
// with the number of answers the server gave (the benchmark logs it), in µs per answer, else in
// ms. Idle time and start-up (every sample before the first request reached node:http's server)
// are left out: in a short run, loading and type-stripping the modules weighs like a call.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, answersText, topText] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/cpu-profile.ts <file.cpuprofile> [answers] [top functions, default 30]');
  process.exit(2);
}
const answers = answersText ? Number(answersText) : null;
const top = topText ? Number(topText) : 30;
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));

const parents = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
/** The node and its callers, innermost first. */
const stackOf = (id: number): ProfileNode[] => {
  const stack: ProfileNode[] = [];
  for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
    const node = nodes.get(at);
    if (node) stack.push(node);
  }
  return stack;
};
const serving = (id: number) => stackOf(id).some((n) => n.callFrame.functionName === 'parserOnIncoming');
const firstRequest = profile.samples.findIndex(serving);

const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => {
  if (i < firstRequest) return;
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});

/** `nm:fastify`, `nm:@fastify/cookie`, `node:*`, or a path in the repository. */
function where(url: string, functionName: string): string {
  if (url === '') return `(${functionName})`;
  if (url.startsWith('node:')) return 'node:*';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + 'node_modules/'.length).split('/');
    return `nm:${parts.slice(0, parts[0]?.startsWith('@') ? 2 : 1).join('/')}`;
  }
  return url.replace(/^file:\/\//, '').replace(`${process.cwd()}/`, '');
}

const byPlace = new Map<string, number>();
const byFunction = new Map<string, number>();
const totalByFunction = new Map<string, number>();
const nameOf = (frame: ProfileNode['callFrame']) => {
  const place = where(frame.url, frame.functionName);
  return `${frame.functionName || '(anonymous)'} ${place === 'node:*' ? frame.url : place}:${frame.lineNumber + 1}`;
};
let busy = 0;
for (const [id, us] of selfUs) {
  const frame = nodes.get(id)?.callFrame;
  if (!frame || frame.functionName === '(idle)') continue;
  busy += us;
  const place = where(frame.url, frame.functionName);
  byPlace.set(place, (byPlace.get(place) ?? 0) + us);
  byFunction.set(nameOf(frame), (byFunction.get(nameOf(frame)) ?? 0) + us);
  // Each function once per sample, however deep it recursed.
  for (const name of new Set(stackOf(id).map((n) => nameOf(n.callFrame)))) {
    totalByFunction.set(name, (totalByFunction.get(name) ?? 0) + us);
  }
}

const unit = answers ? 'µs/answer' : 'ms';
const shown = (us: number) => (answers ? (us / answers).toFixed(1) : (us / 1000).toFixed(0)).padStart(8);
const table = (title: string, rows: Map<string, number>, limit: number) => {
  console.log(`\n${title}`);
  for (const [name, us] of [...rows].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
    console.log(`${shown(us)} ${unit}  ${((100 * us) / busy).toFixed(1).padStart(5)} %  ${name}`);
  }
};
console.log(`${file}: busy ${shown(busy).trim()} ${unit}${answers ? ` over ${answers} answers` : ''}`);
table('by package or file', byPlace, 25);
table('by function', byFunction, top);
table('by function, with what it called', totalByFunction, top);
