import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_ONLY } from '../packages/server/test/databases.ts';
import {
  type Client,
  exampleSource,
  inDays,
  type Json,
  later,
  NEVER_ANSWERED,
  readAll,
  someone,
  type User,
  Walk,
  walkDeactivation,
  walkJoiningLinks,
  walkLockout,
  walkPasswordReset,
  walkRateLimit,
  walkSession,
} from './walk.ts';

const SOURCE = exampleSource('helpdesk.md');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Codes of the catalogue no call of this spec can answer, each with why. */
const EXCLUDED: Readonly<Record<string, string>> = {
  ...NEVER_ANSWERED,
  SIGN_UP_DOMAIN: 'no role of the helpdesk takes sign-ups from some email domains only',
};

describe.each(SQLITE_ONLY)('the helpdesk example over HTTP on $name', (db) => {
  let walk: Walk;
  let lead: Client;
  let leadUser: User;
  /** The agent who works the printer ticket. */
  let sam: User;
  let agent: Client;
  /** The requester who reported it. */
  let rita: User;
  let requester: Client;
  const ticket = (fields: Json = {}): Json => ({
    title: 'Printer on the third floor jams',
    description: 'Every second page jams in tray 2 since this morning.',
    ...fields,
  });
  const article = (fields: Json = {}): Json => ({
    title: 'How do I reset my password?',
    body: 'Open the self-service portal, choose "Forgot password" and follow the steps it mails you.',
    category: 'access',
    review_by: inDays(90),
    ...fields,
  });
  /** A requester of their own: at most MAX_OPEN_TICKETS open tickets each. */
  const newRequester = (name: string) => walk.user(['requester'], name);
  let printer: Json;

  beforeAll(async () => {
    walk = await Walk.start(SOURCE, db);
    leadUser = await walk.user(['lead'], 'lead');
    lead = walk.as(leadUser);
    sam = await walk.user(['agent'], 'sam');
    agent = walk.as(sam);
    rita = await newRequester('rita');
    requester = walk.as(rita);
  });
  afterAll(async () => {
    await walk?.close();
  });

  it('opens a ticket for the requester who reports it, in state new with its defaults', async () => {
    const before = new Date().toISOString();
    printer = await requester.create(
      '/api/tickets',
      ticket({ asset_tag: 'IT-00042', notify: 'facilities@example.com' }),
    );
    expect(printer).toMatchObject({
      state: 'new',
      category: 'other',
      priority: 'normal',
      reporter: rita.id,
      created_by: rita.id,
      assignee: null,
      time_spent: null,
      asset_tag: 'IT-00042',
    });
    expect(printer.started_at >= before && printer.started_at <= new Date().toISOString()).toBe(true);
    const got = await requester.get(`/api/tickets/${printer.id}`);
    expect(got.body).toEqual(printer);
    expect(got.headers.get('etag')).toBe('"1"');
    expect((await agent.get(`/api/tickets/${printer.id}`)).status).toBe(200);
    walk.expectProblem(await agent.get(`/api/tickets/${someone()}`), 'NOT_FOUND');
  });

  it('shows a requester only the tickets they reported, and nothing signed out', async () => {
    const rob = walk.as(await newRequester('rob'));
    walk.expectProblem(await rob.get(`/api/tickets/${printer.id}`), 'NOT_FOUND');
    walk.expectProblem(await rob.patch(`/api/tickets/${printer.id}`, { priority: 'low' }), 'NOT_FOUND');
    walk.expectProblem(await rob.post(`/api/tickets/${printer.id}/withdraw`), 'NOT_FOUND');
    expect((await rob.get('/api/tickets')).body.items).toEqual([]);
    expect((await requester.get('/api/tickets')).body.items.map((t: Json) => t.id)).toEqual([printer.id]);
    const visitor = walk.as(null);
    walk.expectProblem(await visitor.get('/api/tickets'), 'NOT_SIGNED_IN');
    walk.expectProblem(await visitor.post('/api/tickets', ticket({ reporter: rita.id })), 'NOT_SIGNED_IN');
    walk.expectProblem(await visitor.get('/api/articles'), 'NOT_SIGNED_IN');
  });

  it('stores a start time given with an offset in UTC, and takes MAX_TICKET_HOURS but not more', async () => {
    const reporter = (await newRequester('nina')).id;
    const given = await agent.create(
      '/api/tickets',
      ticket({ reporter, started_at: '2025-03-01T10:00:00+02:00', time_spent: 37.5, category: 'network' }),
    );
    expect(given).toMatchObject({ started_at: '2025-03-01T08:00:00.000Z', time_spent: 37.5, reporter });
    walk.expectProblem(await agent.post('/api/tickets', ticket({ reporter, time_spent: 37.75 })), 'VALIDATION_FAILED', [
      ['time_spent', 'OUT_OF_RANGE'],
    ]);
  });

  it('refuses a ticket field by field with the catalogue codes, each at its field', async () => {
    const wrong = await agent.post('/api/tickets', {
      title: 'Help',
      description: 'd'.repeat(5001),
      category: 'printer',
      priority: 'asap',
      reporter: 'me',
      notify: 'not-an-address',
      asset_tag: 'IT-12',
      started_at: '2025-01-01T09:00:00',
      time_spent: -0.25,
      resolution: 'r'.repeat(2001),
    });
    walk.expectProblem(wrong, 'VALIDATION_FAILED', [
      ['title', 'TOO_SHORT'],
      ['description', 'TOO_LONG'],
      ['category', 'INVALID_CHOICE'],
      ['priority', 'INVALID_CHOICE'],
      ['reporter', 'INVALID_TYPE'],
      ['notify', 'INVALID_TYPE'],
      ['asset_tag', 'PATTERN_MISMATCH'],
      ['started_at', 'INVALID_TYPE'],
      ['time_spent', 'OUT_OF_RANGE'],
      ['resolution', 'TOO_LONG'],
    ]);
    const choice = wrong.body.errors.find((e: Json) => e.field === 'category');
    expect(choice.message).toBe('category must be one of hardware, software, access, network, other.');
    walk.expectProblem(await agent.post('/api/tickets', {}), 'VALIDATION_FAILED', [
      ['title', 'REQUIRED'],
      ['description', 'REQUIRED'],
    ]);
    walk.expectProblem(
      await agent.post('/api/tickets', ticket({ title: 't'.repeat(121), state: 'closed', priority: null })),
      'VALIDATION_FAILED',
      [
        ['title', 'TOO_LONG'],
        ['state', 'READ_ONLY_FIELD'],
        ['priority', 'REQUIRED'],
      ],
    );
  });

  it('refuses a problem that started in the future (STARTED_IN_FUTURE), and an urgent one raised by a requester (URGENT_BY_PHONE)', async () => {
    const future = new Date(Date.now() + HOUR).toISOString();
    const started = await requester.post('/api/tickets', ticket({ started_at: future }));
    walk.expectProblem(started, 'STARTED_IN_FUTURE', [['started_at', 'STARTED_IN_FUTURE']]);
    expect(started.body.errors[0].message).toBe(`The problem cannot have started after now (${future}).`);

    const urgent = await requester.post('/api/tickets', ticket({ priority: 'urgent' }));
    walk.expectProblem(urgent, 'URGENT_BY_PHONE', [['priority', 'URGENT_BY_PHONE']]);
    expect(urgent.body.errors[0].message).toBe(
      'Urgent problems are raised by phone: call the service desk on +44 20 7946 0100.',
    );
    // An agent takes the call and raises it.
    const reporter = (await newRequester('ursula')).id;
    const raised = await agent.create(
      '/api/tickets',
      ticket({ reporter, priority: 'urgent', title: 'Payroll is down' }),
    );
    expect(raised).toMatchObject({ priority: 'urgent', reporter, created_by: sam.id });
  });

  it('refuses a fourth open ticket of one reporter with TOO_MANY_OPEN (MAX_OPEN_TICKETS), and counts only open ones', async () => {
    const tom = walk.as(await newRequester('tom'));
    const open: Json[] = [];
    for (let i = 0; i < 3; i++) open.push(await tom.create('/api/tickets', ticket({ title: `VPN drops ${i}` })));
    const fourth = await tom.post('/api/tickets', ticket());
    walk.expectProblem(fourth, 'TOO_MANY_OPEN', [[null, 'TOO_MANY_OPEN']]);
    expect(fourth.body.detail).toBe('You already have 3 open tickets; add to one of them instead.');
    // "withdraw" names no roles: whoever may update the ticket (the requester, their own) may.
    expect((await tom.post(`/api/tickets/${open[0].id}/withdraw`)).body.state).toBe('closed');
    await tom.create('/api/tickets', ticket());
  });

  it('updates a ticket with If-Match, and answers a stale If-Match with CONFLICT', async () => {
    const path = `/api/tickets/${printer.id}`;
    const updated = await agent.patch(
      path,
      { priority: 'high', time_spent: 1.25, category: 'hardware' },
      { ifMatch: '"1"' },
    );
    expect(updated.status).toBe(200);
    expect(updated.headers.get('etag')).toBe('"2"');
    expect(updated.body).toMatchObject({ priority: 'high', time_spent: 1.25, category: 'hardware', state: 'new' });
    const stale = await agent.patch(path, { priority: 'low' }, { ifMatch: '"1"' });
    walk.expectProblem(stale, 'CONFLICT');
    expect(stale.body.detail).toBe('This Ticket was changed by someone else. Reload it and try again.');
    expect((await agent.get(path)).body.priority).toBe('high');

    const later1h = new Date(Date.now() + HOUR).toISOString();
    walk.expectProblem(await agent.patch(path, { started_at: later1h, state: 'closed' }), 'VALIDATION_FAILED', [
      ['state', 'READ_ONLY_FIELD'],
    ]);
    walk.expectProblem(await agent.patch(path, { started_at: later1h }), 'STARTED_IN_FUTURE', [
      ['started_at', 'STARTED_IN_FUTURE'],
    ]);
    walk.expectProblem(await agent.patch(path, { title: null, notify: 'x'.repeat(250) }), 'VALIDATION_FAILED', [
      ['title', 'REQUIRED'],
      ['notify', 'INVALID_TYPE'],
    ]);
    walk.expectProblem(await agent.patch(`/api/tickets/${someone()}`, { priority: 'low' }), 'NOT_FOUND');
  });

  it('lets a requester change a ticket reported for them, but not make it no longer theirs', async () => {
    const own = await requester.patch(`/api/tickets/${printer.id}`, {
      description: 'Every page jams in tray 2 since this morning.',
    });
    expect(own.status).toBe(200);
    const dock = await agent.create('/api/tickets', ticket({ reporter: rita.id, title: 'Docking station is dead' }));
    const path = `/api/tickets/${dock.id}`;
    expect((await requester.patch(path, { notify: 'desk.neighbour@example.com' })).status).toBe(200);
    walk.expectProblem(await requester.patch(path, { reporter: someone() }), 'FORBIDDEN');
    // Whoever may change the reporter may only name a user who exists.
    const unknown = await agent.patch(path, { reporter: someone() });
    walk.expectProblem(unknown, 'UNKNOWN_REFERENCE');
    expect(unknown.body.errors).toMatchObject([{ field: 'reporter', code: 'UNKNOWN_REFERENCE' }]);
    expect((await requester.get(path)).body.reporter).toBe(rita.id);
  });

  it('lets a requester set only the fields point 6 names for them, and tells the app which', async () => {
    // create (title, description, category, priority, notify, asset_tag, started_at)
    const assigned = await requester.post('/api/tickets', ticket({ assignee: sam.id, time_spent: 2 }));
    walk.expectProblem(assigned, 'FORBIDDEN');
    expect(assigned.body.detail).toBe('Your roles may not set assignee and time_spent on a new Ticket.');
    // Sending a field's default is no attempt to set it.
    const plain = await requester.create('/api/tickets', ticket({ title: 'Mouse wheel sticks', assignee: null }));
    expect(plain).toMatchObject({ assignee: null, time_spent: null, reporter: rita.id });
    const path = `/api/tickets/${plain.id}`;
    const triaged = await agent.patch(path, { assignee: sam.id, time_spent: 0.5 });
    expect(triaged.status).toBe(200);

    // update own (description, notify, asset_tag): the triage fields stay the desk's.
    const retitled = await requester.patch(path, { title: 'Mouse wheel sticks badly', assignee: sam.id });
    walk.expectProblem(retitled, 'FORBIDDEN');
    expect(retitled.body.detail).toBe('Your roles may not change title of this Ticket.');
    walk.expectProblem(await requester.patch(path, { time_spent: 0 }), 'FORBIDDEN');
    // A field sent unchanged, as a form that read the record sends it back, passes.
    expect((await requester.patch(path, { assignee: sam.id, notify: 'me@example.com' })).status).toBe(200);
    expect((await requester.get(path)).body).toMatchObject({ title: 'Mouse wheel sticks', time_spent: 0.5 });

    const me = await requester.get('/api/auth/me');
    expect(me.body.access.Ticket).toMatchObject({
      createFields: [
        'title',
        'description',
        'category',
        'priority',
        'reporter',
        'notify',
        'asset_tag',
        'started_at',
        'screenshots',
      ],
      updateFields: ['description', 'notify', 'asset_tag', 'screenshots'],
    });
    expect((await agent.get('/api/auth/me')).body.access.Ticket).toMatchObject({
      createFields: null,
      updateFields: null,
    });
  });

  it('walks new → assign → start → wait → resume → resolve → reopen → resolve → close, each by who may', async () => {
    const path = `/api/tickets/${printer.id}`;
    const kim = walk.as(await walk.user(['agent'], 'kim'));
    // assign's guard reads the assignee's roles: only an agent can be assigned.
    expect((await agent.patch(path, { assignee: rita.id })).status).toBe(200);
    const notAgent = await agent.post(`${path}/assign`);
    walk.expectProblem(notAgent, 'TRANSITION_NOT_ALLOWED');
    // A guard that does not hold says what it needs, not that the state is wrong.
    expect(notAgent.body.detail).toBe('Assign is allowed only when the assignee has the role agent.');
    walk.expectProblem(await requester.post(`${path}/assign`), 'FORBIDDEN');
    const withSam = await agent.patch(path, { assignee: sam.id });
    const assigned = await agent.post(`${path}/assign`, {}, { ifMatch: withSam.headers.get('etag') ?? '' });
    expect(assigned.body).toMatchObject({ state: 'assigned', assignee: sam.id });

    // start's guard: only the assignee starts work.
    walk.expectProblem(await kim.post(`${path}/start`), 'TRANSITION_NOT_ALLOWED');
    walk.expectProblem(await requester.post(`${path}/start`), 'FORBIDDEN');
    expect((await agent.post(`${path}/start`)).body.state).toBe('in_progress');
    expect((await agent.post(`${path}/wait`)).body.state).toBe('waiting');
    expect((await requester.post(`${path}/resume`)).body.state).toBe('in_progress');

    // resolve's guard: a resolution of at least MIN_RESOLUTION_LENGTH characters.
    const blank = await agent.post(`${path}/resolve`);
    walk.expectProblem(blank, 'TRANSITION_NOT_ALLOWED');
    await agent.patch(path, { resolution: 'x'.repeat(19) });
    walk.expectProblem(await agent.post(`${path}/resolve`), 'TRANSITION_NOT_ALLOWED');
    await agent.patch(path, { resolution: 'Replaced the worn fuser unit in tray 2.' });
    expect((await agent.post(`${path}/resolve`)).body.state).toBe('resolved');
    walk.expectProblem(await agent.post(`${path}/reopen`), 'FORBIDDEN');
    expect((await requester.post(`${path}/reopen`)).body.state).toBe('in_progress');
    expect((await agent.post(`${path}/resolve`)).body.state).toBe('resolved');
    walk.expectProblem(await requester.post(`${path}/close`), 'FORBIDDEN');
    const closed = await lead.post(`${path}/close`);
    expect(closed.body.state).toBe('closed');
    const again = await lead.post(`${path}/close`);
    walk.expectProblem(again, 'TRANSITION_NOT_ALLOWED');
    expect(again.body.detail).toBe('You cannot close a ticket that is closed.');

    const history = (await requester.get(`${path}/history`)).body.items.filter((h: Json) => h.action === 'transition');
    expect(history.map((h: Json) => [h.transition, h.from, h.to])).toEqual([
      ['assign', 'new', 'assigned'],
      ['start', 'assigned', 'in_progress'],
      ['wait', 'in_progress', 'waiting'],
      ['resume', 'waiting', 'in_progress'],
      ['resolve', 'in_progress', 'resolved'],
      ['reopen', 'resolved', 'in_progress'],
      ['resolve', 'in_progress', 'resolved'],
      ['close', 'resolved', 'closed'],
    ]);
    expect(history.map((h: Json) => h.by)).toContain(rita.id);
  });

  it('refuses to reopen a ticket resolved more than REOPEN_WINDOW ago (the guard reads updated_at)', async () => {
    const reporter = walk.as(await newRequester('lena'));
    const scanner = await reporter.create('/api/tickets', ticket({ title: 'Scanner is slow' }));
    const path = `/api/tickets/${scanner.id}`;
    await agent.patch(path, { assignee: sam.id, resolution: 'Cleaned the scanner glass and its rollers.' });
    for (const slug of ['assign', 'start', 'resolve']) expect((await agent.post(`${path}/${slug}`)).status).toBe(200);
    await later(15 * DAY, async () => {
      const reopened = await reporter.post(`${path}/reopen`);
      walk.expectProblem(reopened, 'TRANSITION_NOT_ALLOWED');
      expect(reopened.body.detail).toBe(
        'Reopen is allowed only when less than 14 days have passed since it was last changed.',
      );
    });
  });

  it('escalates a ticket only past its service level: SLA_RESPONSE, or SLA_URGENT when urgent', async () => {
    const normal = await agent.create(
      '/api/tickets',
      ticket({ reporter: (await newRequester('olga')).id, title: 'Outlook keeps asking for a password' }),
    );
    const urgent = await agent.create(
      '/api/tickets',
      ticket({ reporter: (await newRequester('uma')).id, title: 'Trading floor is offline', priority: 'urgent' }),
    );

    const early = await agent.post(`/api/tickets/${normal.id}/escalate`);
    walk.expectProblem(early, 'TRANSITION_NOT_ALLOWED');
    expect(early.body.detail).toBe(
      'Escalate is allowed only when more than 30 minutes have passed since it was created if the priority is "urgent", ' +
        'and otherwise when more than 4 hours have passed since it was created.',
    );
    walk.expectProblem(await agent.post(`/api/tickets/${urgent.id}/escalate`), 'TRANSITION_NOT_ALLOWED');

    await later(31 * MINUTE, async () => {
      walk.expectProblem(await agent.post(`/api/tickets/${normal.id}/escalate`), 'TRANSITION_NOT_ALLOWED');
      const escalated = await agent.post(`/api/tickets/${urgent.id}/escalate`, undefined, { ifMatch: '"1"' });
      expect(escalated.body.state).toBe('escalated');
      expect(escalated.headers.get('etag')).toBe('"2"');
    });
    await later(4 * HOUR + MINUTE, async () => {
      expect((await lead.post(`/api/tickets/${normal.id}/escalate`)).body.state).toBe('escalated');
    });

    const again = await agent.post(`/api/tickets/${normal.id}/escalate`);
    walk.expectProblem(again, 'TRANSITION_NOT_ALLOWED');
    expect(again.body.detail).toBe('You cannot escalate a ticket that is escalated.');
    walk.expectProblem(await agent.post(`/api/tickets/${normal.id}/withdraw`), 'TRANSITION_NOT_ALLOWED');
    // The lead assigns an escalated ticket again.
    await lead.patch(`/api/tickets/${normal.id}`, { assignee: sam.id });
    expect((await lead.post(`/api/tickets/${normal.id}/assign`)).body.state).toBe('assigned');
  });

  it('refuses the assignment over MAX_ACTIVE_PER_AGENT with WORKLOAD_FULL', async () => {
    const busy = await walk.user(['agent'], 'busy');
    const reporters: string[] = [];
    for (let i = 0; i < 5; i++) reporters.push((await newRequester(`queue${i}`)).id);
    const assign = async (i: number) => {
      const reporter = reporters[Math.floor(i / 3)];
      const made = await agent.create('/api/tickets', ticket({ reporter, assignee: busy.id, title: `Laptop ${i}` }));
      return agent.post(`/api/tickets/${made.id}/assign`);
    };
    for (let i = 0; i < 12; i++) expect((await assign(i)).body.state).toBe('assigned');
    const full = await assign(12);
    walk.expectProblem(full, 'WORKLOAD_FULL', [[null, 'WORKLOAD_FULL']]);
    expect(full.body.detail).toBe('This agent already has 12 active tickets; ask the lead.');
  });

  it('withdraws a new ticket, and refuses every transition not allowed from its state', async () => {
    const ticketId = (await requester.create('/api/tickets', ticket({ title: 'Wrong keyboard layout' }))).id;
    for (const slug of ['start', 'wait', 'resolve', 'close']) {
      const refused = await agent.post(`/api/tickets/${ticketId}/${slug}`);
      walk.expectProblem(refused, 'TRANSITION_NOT_ALLOWED');
      expect(refused.body.detail).toBe(`You cannot ${slug} a ticket that is new.`);
    }
    for (const slug of ['resume', 'reopen']) {
      walk.expectProblem(await requester.post(`/api/tickets/${ticketId}/${slug}`), 'TRANSITION_NOT_ALLOWED');
    }
    const withdrawn = await requester.post(`/api/tickets/${ticketId}/withdraw`, {}, { ifMatch: '"1"' });
    expect(withdrawn.body.state).toBe('closed');
    walk.expectProblem(await requester.post(`/api/tickets/${ticketId}/withdraw`), 'TRANSITION_NOT_ALLOWED');
    walk.expectProblem(
      await requester.post(`/api/tickets/${ticketId}/withdraw`, { reason: 'typo' }),
      'INVALID_PAYLOAD',
    );
    walk.expectProblem(await agent.post(`/api/tickets/${someone()}/withdraw`), 'NOT_FOUND');
  });

  it('lists tickets along the cursor, filtered by state, priority and reporter, sorted and searched', async () => {
    const all: Json[] = (await agent.get('/api/tickets?limit=200')).body.items;
    expect(all.length).toBeGreaterThan(20);
    expect((await readAll(agent, '/api/tickets', 7)).map((t: Json) => t.id)).toEqual(all.map((t) => t.id));
    const escalated = (await agent.get('/api/tickets?filter[state]=escalated')).body.items;
    expect(escalated.map((t: Json) => t.title)).toEqual(['Trading floor is offline']);
    const urgent = (await agent.get('/api/tickets?filter[priority]=urgent&count=true')).body;
    expect(urgent.total).toBe(all.filter((t) => t.priority === 'urgent').length);
    const mine = (await agent.get(`/api/tickets?filter[reporter]=${rita.id}`)).body.items;
    expect(mine.map((t: Json) => t.id)).toEqual(all.filter((t) => t.reporter === rita.id).map((t) => t.id));
    expect((await agent.get(`/api/tickets?filter[assignee]=${sam.id}&filter[state]=closed`)).body.items).toHaveLength(
      1,
    );
    const spent = (await readAll(agent, '/api/tickets?sort=-time_spent&filter[category]=network', 1)).map(
      (t: Json) => t.time_spent,
    );
    expect(spent).toEqual([37.5]);
    const found = (await agent.get('/api/tickets?q=TRAY%202&count=true')).body;
    expect(found.total).toBe(all.filter((t) => /tray 2/i.test(`${t.description} ${t.resolution ?? ''}`)).length);
    expect((await agent.get('/api/tickets?q=it-00042')).body.items.map((t: Json) => t.id)).toEqual([printer.id]);
    expect((await requester.get('/api/tickets?q=laptop')).body.items).toEqual([]);
    for (const query of ['filter[priority]=asap', 'filter[time_spent]=lots', 'limit=201', 'sort=-nope']) {
      walk.expectProblem(await agent.get(`/api/tickets?${query}`), 'INVALID_PAYLOAD');
    }
  });

  it('lets only the lead delete a ticket, with If-Match; its history stays readable', async () => {
    const typo = await requester.create('/api/tickets', ticket({ title: 'Typo in the ticket' }));
    const path = `/api/tickets/${typo.id}`;
    walk.expectProblem(await requester.delete(path), 'FORBIDDEN');
    walk.expectProblem(await agent.delete(path), 'FORBIDDEN');
    walk.expectProblem(await lead.delete(path, { ifMatch: '"2"' }), 'CONFLICT');
    expect((await lead.delete(path, { ifMatch: '"1"' })).status).toBe(204);
    walk.expectProblem(await lead.get(path), 'NOT_FOUND');
    walk.expectProblem(await lead.delete(path), 'NOT_FOUND');
    expect((await requester.get(`${path}/history`)).body.items.map((h: Json) => h.action)).toEqual([
      'create',
      'delete',
    ]);
  });

  it('keeps a comment thread on a ticket: its reporter and the desk write and read it, nobody else', async () => {
    const path = '/api/ticket-comments';
    const question = await requester.create(path, { ticket: printer.id, body: 'Is there a spare printer I can use?' });
    expect(question).toMatchObject({ ticket: printer.id, created_by: rita.id });
    const answer = await agent.create(path, { ticket: printer.id, body: 'Yes: the one by the lifts on floor 2.' });
    const thread = await requester.get(`${path}?filter[ticket]=${printer.id}&sort=created_at`);
    expect(thread.body.items.map((c: Json) => c.id)).toEqual([question.id, answer.id]);
    expect((await requester.get(`${path}/${answer.id}`)).status).toBe(200);
    // Someone else's ticket: its comments are not theirs to read, nor to add to.
    const rob = walk.as(await newRequester('robin'));
    expect((await rob.get(`${path}?filter[ticket]=${printer.id}`)).body.items).toEqual([]);
    walk.expectProblem(await rob.get(`${path}/${answer.id}`), 'NOT_FOUND');
    expect((await rob.post(path, { ticket: printer.id, body: 'Me too!' })).status).not.toBe(201);
    walk.expectProblem(await requester.patch(`${path}/${question.id}`, { body: 'Edited' }), 'FORBIDDEN');
    const edited = await lead.patch(`${path}/${question.id}`, { body: 'Is there a spare printer nearby?' });
    expect(edited.status).toBe(200);
    expect((await lead.get(`${path}/${question.id}/history`)).body.items.map((h: Json) => h.action)).toEqual([
      'create',
      'update',
    ]);
    expect((await lead.delete(`${path}/${question.id}`, { ifMatch: '"2"' })).status).toBe(204);
  });

  it('lets the lead manage people, but not deactivate themself nor leave nobody who may (CANNOT_DEACTIVATE_SELF, LAST_MANAGER)', async () => {
    walk.expectProblem(await lead.patch(`/api/users/${leadUser.id}`, { active: false }), 'CANNOT_DEACTIVATE_SELF');
    walk.expectProblem(await lead.patch(`/api/users/${leadUser.id}`, { roles: ['agent'] }), 'LAST_MANAGER');
    walk.expectProblem(await agent.patch(`/api/users/${rita.id}`, { roles: ['agent'] }), 'FORBIDDEN');
    expect((await lead.get('/api/users')).status).toBe(200);
  });

  it('writes, publishes, lists and deletes knowledge-base articles, each by who may', async () => {
    const reset = await agent.create('/api/articles', article({ link: 'https://support.example.com/reset' }));
    expect(reset).toMatchObject({ published: false, created_by: sam.id });
    const wifi = await agent.create(
      '/api/articles',
      article({ title: 'How do I join the guest Wi-Fi?', category: 'network', review_by: inDays(-1) }),
    );
    walk.expectProblem(await requester.post('/api/articles', article({ title: 'My own article' })), 'FORBIDDEN');
    walk.expectProblem(await requester.patch(`/api/articles/${reset.id}`, { published: true }), 'FORBIDDEN');
    const published = await agent.patch(`/api/articles/${reset.id}`, { published: true }, { ifMatch: '"1"' });
    expect(published.body.published).toBe(true);
    walk.expectProblem(
      await agent.patch(`/api/articles/${reset.id}`, { published: false }, { ifMatch: '"1"' }),
      'CONFLICT',
    );

    const stale = await agent.patch(`/api/articles/${wifi.id}`, { published: true });
    walk.expectProblem(stale, 'REVIEW_DATE_NEEDED', [[null, 'REVIEW_DATE_NEEDED']]);
    expect(stale.body.errors[0].message).toBe(
      'Set a review date after today before publishing "How do I join the guest Wi-Fi?".',
    );
    walk.expectProblem(
      await agent.post(
        '/api/articles',
        article({ title: 'How do I book a meeting room?', published: true, review_by: inDays(0) }),
      ),
      'REVIEW_DATE_NEEDED',
      [[null, 'REVIEW_DATE_NEEDED']],
    );
    expect((await agent.patch(`/api/articles/${wifi.id}`, { published: true, review_by: inDays(30) })).status).toBe(
      200,
    );

    const live = (await requester.get('/api/articles?filter[published]=true&sort=review_by')).body.items;
    expect(live.map((a: Json) => a.id)).toEqual([wifi.id, reset.id]);
    expect((await requester.get('/api/articles?q=wi-fi')).body.items.map((a: Json) => a.id)).toEqual([wifi.id]);
    expect((await requester.get(`/api/articles/${wifi.id}`)).headers.get('etag')).toBe('"2"');

    walk.expectProblem(await agent.delete(`/api/articles/${wifi.id}`), 'FORBIDDEN');
    expect((await lead.delete(`/api/articles/${wifi.id}`, { ifMatch: '"2"' })).status).toBe(204);
    expect((await agent.get(`/api/articles/${wifi.id}/history`)).body.items.map((h: Json) => h.action)).toEqual([
      'create',
      'update',
      'delete',
    ]);
    walk.expectProblem(await agent.get(`/api/articles/${someone()}/history`), 'NOT_FOUND');
  });

  it('refuses articles field by field, and a second article with the same title with NOT_UNIQUE', async () => {
    walk.expectProblem(await agent.post('/api/articles', article()), 'NOT_UNIQUE', [['title', 'NOT_UNIQUE']]);
    walk.expectProblem(
      await agent.post('/api/articles', {
        title: 'Help',
        body: 'b'.repeat(49),
        category: 'printers',
        link: 'ftp://files.example.com/manual.pdf',
        published: 'yes',
        review_by: '2025-02-30',
      }),
      'VALIDATION_FAILED',
      [
        ['title', 'TOO_SHORT'],
        ['body', 'TOO_SHORT'],
        ['category', 'INVALID_CHOICE'],
        ['link', 'INVALID_TYPE'],
        ['published', 'INVALID_TYPE'],
        ['review_by', 'INVALID_TYPE'],
      ],
    );
    walk.expectProblem(
      await agent.post('/api/articles', { title: 'x'.repeat(151), body: 'b'.repeat(50) }),
      'VALIDATION_FAILED',
      [
        ['title', 'TOO_LONG'],
        ['category', 'REQUIRED'],
        ['review_by', 'REQUIRED'],
      ],
    );
  });

  it('refuses bodies that are not payloads, too large ones, and calls that are not derived', async () => {
    walk.expectProblem(await agent.post('/api/tickets', ticket({ urgency: 'high' })), 'INVALID_PAYLOAD');
    walk.expectProblem(await agent.post('/api/tickets', undefined, { raw: '{"title":' }), 'INVALID_PAYLOAD');
    walk.expectProblem(await agent.post('/api/articles', undefined, { raw: '"text"' }), 'INVALID_PAYLOAD');
    walk.expectProblem(
      await agent.post('/api/tickets', ticket({ description: 'x'.repeat(1_100_000) })),
      'PAYLOAD_TOO_LARGE',
    );
    for (const [method, path] of [
      ['GET', '/api/kb'],
      ['GET', '/api/queue'],
      ['PUT', `/api/tickets/${printer.id}`],
      ['POST', `/api/tickets/${printer.id}/open`],
      ['POST', `/api/articles/${someone()}/publish`],
    ] as const) {
      walk.expectProblem(await agent.call(method, path), 'UNKNOWN_CALL');
    }
  });

  it('signs a requester in by password: a session cookie reads and, from the app’s own pages only, writes', async () => {
    const sue = await newRequester('sue');
    const written = await walkSession(walk, sue, '/api/tickets', {
      method: 'POST',
      path: '/api/tickets',
      body: ticket({ title: 'Monitor flickers' }),
    });
    expect(written.body.reporter).toBe(sue.id);
  });

  it('answers RATE_LIMITED, with the catalogue’s message, past RATE_LIMIT_PER_MINUTE calls of one user', async () => {
    await walkRateLimit(walk.as(await newRequester('eager')), '/api/articles?limit=1');
  });

  // In this order: a lockout locks the address too, so only walks that sign no one in follow it.
  it('signs a deactivated account out and refuses its sign-in (ACCOUNT_DEACTIVATED)', async () => {
    await walkDeactivation(walk, await newRequester('leaving'), '/api/articles?limit=1');
  });

  it('locks sign-in after SIGN_IN_ATTEMPTS_PER_15_MINUTES failures, even with the right password (SIGN_IN_LOCKED)', async () => {
    await walkLockout(walk, await newRequester('forgetful'));
  });

  it('refuses a password reset link no mail carried (RESET_LINK_INVALID), and answers a reset request alike for any address', async () => {
    await walkPasswordReset(walk);
  });

  it('refuses sign-up confirmation and invitation links no mail carried (VERIFY_LINK_INVALID, INVITATION_INVALID)', async () => {
    await walkJoiningLinks(walk);
  });

  it('walked every derived call to a success and answered every catalogued code', () => {
    walk.expectEveryCallSucceeded({});
    walk.expectCatalogueCovered(EXCLUDED);
  });
});
