// A program a team would write against `ninepoint client examples/helpdesk.md --out client.ts`:
// a requester signs in with a password, an agent calls with an API token and follows live events.
// src/ninepoint-client.test.ts copies it beside the written client, type-checks it and runs it.
import { type Change, createClient, type ErrorCode, NinepointError, type Ticket } from './client.ts';

const baseUrl = process.env.APP_URL ?? '';
const agent = createClient({ baseUrl, token: process.env.AGENT_TOKEN ?? '' });
const requester = createClient({ baseUrl });

const changes: Change[] = [];
let opened!: () => void;
const open = new Promise<void>((resolve) => {
  opened = resolve;
});
const stream = agent.events((change) => changes.push(change), { onOpen: () => opened() });
await open;

const me = await requester.signIn(process.env.REQUESTER_EMAIL ?? '', process.env.REQUESTER_PASSWORD ?? '');
// A 1×1 PNG, uploaded by the agent's update: a File value of a file field sends it as multipart.
const png = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC'),
  (c) => c.charCodeAt(0),
);
const created: Ticket = await requester.tickets.create({
  title: 'Printer on floor 3 jams',
  description: 'Every second page jams in tray 2 since this morning.',
  category: 'hardware',
});

const page = await agent.tickets.list({
  filter: { state: 'new', priority: ['normal', 'high'], title: { contains: 'printer' }, reporter: me.id },
  sort: '-created_at',
  count: true,
});
const agentId = (await agent.me())?.id ?? '';
const updated = await agent.tickets.update(created.id, {
  assignee: agentId,
  time_spent: 0.25,
  screenshots: [new File([png], 'tray.png', { type: 'image/png' })],
});
// Downloaded back through the app's own file URL.
const download = await fetch(`${baseUrl}/api/files/${updated.screenshots}`, {
  headers: { authorization: `Bearer ${process.env.AGENT_TOKEN ?? ''}` },
});
const received = new Uint8Array(await download.arrayBuffer());
const assigned = await agent.tickets.assign(created.id);
const started = await agent.tickets.transition(created.id, 'start');

let refused: { code: ErrorCode; status: number; field: string | null } | null = null;
try {
  await requester.tickets.create({ title: 'Cannot sign in', description: 'Locked out.', priority: 'urgent' });
} catch (error) {
  if (error instanceof NinepointError && error.code === 'URGENT_BY_PHONE') {
    refused = { code: error.code, status: error.status, field: error.problem.errors?.[0]?.field ?? null };
  } else throw error;
}

// The stream tells of the create, the update and both transitions, in order; wait for the last.
const deadline = Date.now() + 10_000;
while (!changes.some((c) => c.id === created.id && c.kind === 'transition' && changes.length >= 4)) {
  if (Date.now() > deadline) break;
  await new Promise((resolve) => setTimeout(resolve, 20));
}
stream.close();
await requester.signOut();

console.log(
  JSON.stringify({
    signedIn: me.roles,
    created: { id: created.id, state: created.state, reporter: created.reporter === me.id },
    screenshot: { status: download.status, sent: [...png], received: [...received] },
    listed: { ids: page.items.map((t) => t.id), total: page.total ?? null },
    assigned: assigned.state,
    started: started.state,
    refused,
    heard: changes.filter((c) => c.id === created.id).map((c) => `${c.entity} ${c.kind}`),
    afterSignOut: await requester.me(),
  }),
);
