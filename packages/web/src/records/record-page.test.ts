import { readFileSync } from 'node:fs';
import { checkSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import type { EntityAccess, Me } from '../api/session.ts';
import { workSources } from '../home/YourWork.tsx';
import { NO_ACCESS } from './access.ts';
import { bulkSettableFields } from './BulkSetField.tsx';
import { inPlaceFields } from './InlineField.tsx';
import { referrersOf, referringQuery } from './Related.tsx';
import { conversationQuery } from './Thread.tsx';
import { shortReason } from './transitions.tsx';

const example = (name: string) =>
  checkSpec(readFileSync(new URL(`../../../../examples/${name}`, import.meta.url), 'utf8')).model;
const helpdesk = example('helpdesk.md');
const lending = example('lending-desk.md');

const grant = (over: Partial<EntityAccess>): EntityAccess => ({ ...NO_ACCESS, ...over });

const person = (roles: string[], access: Record<string, EntityAccess>): Me => ({
  user: { id: 'u1', email: 'u1@example.test', name: 'Una', roles, createdAt: '2026-01-01T00:00:00.000Z' },
  people: { mayInvite: false, inviteRoles: [], manage: false },
  signUp: [],
  singleSignOn: null,
  twoFactor: null,
  access,
});

const requester = person(['requester'], {
  Ticket: grant({ create: true, read: 'own', update: 'own', updateFields: ['description', 'notify', 'asset_tag'] }),
  TicketComment: grant({ create: true, read: 'own', createFields: ['ticket', 'body'], ownedVia: true }),
  Article: grant({ read: 'all' }),
});
const ticket = {
  id: 't1',
  created_at: '2026-11-01T09:00:00.000Z',
  updated_at: '2026-11-01T09:00:00.000Z',
  created_by: 'u1',
  state: 'new',
  reporter: 'u1',
};

describe('a record’s page', () => {
  it('lists the entities that refer to a record, but a thread, which is its conversation', () => {
    const staff = person(['staff'], { Book: grant({ read: 'all' }), Loan: grant({ read: 'all', create: true }) });
    expect(referrersOf(lending, staff, 'Book').map((r) => `${r.entity.name}.${r.field.name}`)).toEqual(['Loan.book']);
    expect(referrersOf(lending, person(['member'], { Book: grant({ read: 'all' }) }), 'Book')).toEqual([]);
    expect(referrersOf(helpdesk, requester, 'Ticket')).toEqual([]);
    expect(referringQuery('book', 'b1', 10)).toBe('limit=10&sort=created_at&count=true&filter%5Bbook%5D=b1');
    expect(
      conversationQuery({ entity: 'TicketComment', parentField: 'ticket', parent: 'Ticket', textField: 'body' }, 't1'),
    ).toBe('limit=50&sort=-created_at&count=true&filter%5Bticket%5D=t1');
  });

  it('edits in place only the fields point 6 lets the user change on this record', () => {
    const entity = helpdesk.entities.find((e) => e.name === 'Ticket');
    if (!entity) throw new Error('no Ticket');
    expect([...inPlaceFields(helpdesk, requester, entity, ticket, true)]).toEqual([
      'description',
      'notify',
      'asset_tag',
    ]);
    expect([...inPlaceFields(helpdesk, requester, entity, ticket, false)]).toEqual([]);
    // Bulk set leaves out long texts and files: a record's own words.
    expect(bulkSettableFields(helpdesk, requester, entity).map((f) => f.name)).toEqual(['notify', 'asset_tag']);
  });

  it('says a refusal that asks for a field by its first sentence', () => {
    expect(shortReason('Set an assignee first. Assign is allowed only when the assignee has the role agent.')).toBe(
      'Set an assignee first.',
    );
    expect(shortReason('Escalate is allowed only when more than 4 hours have passed.')).toBe(
      'Escalate is allowed only when more than 4 hours have passed.',
    );
  });
});

describe('a role’s home', () => {
  it('looks for the records that name the user, and those they created of entities without a person', () => {
    expect(workSources(helpdesk, requester).map((s) => `${s.entity.name}.${s.field}`)).toEqual([
      'Ticket.reporter',
      'Ticket.assignee',
    ]);
    const agent = person(['agent'], {
      Ticket: grant({ create: true, read: 'all', update: 'all' }),
      Article: grant({ create: true, read: 'all', update: 'all' }),
      TicketComment: grant({ create: true, read: 'all' }),
    });
    expect(workSources(helpdesk, agent).map((s) => s.title)).toEqual([
      'Tickets: you are the reporter',
      'Tickets: you are the assignee',
      'Articles you created',
    ]);
  });
});
