import { readFileSync } from 'node:fs';
import type { Value } from '@ninepoint/server';
import type { Transition } from '@ninepoint/spec';
import type { MatrixActor } from './oracle.ts';

/** A record as the matrix writes and reads it. */
export type Values = Record<string, Value>;

/** What a permitted transition's guard or rules answer, given the record and the actor. */
export interface GuardCase {
  entity: string;
  transition: Transition;
  record: Readonly<Values>;
  actor: MatrixActor;
  /** The roles of a user by id (for guards such as `"agent" in assignee.roles`). */
  rolesOf: (userId: Value | undefined) => readonly string[];
}

/**
 * How to make valid records of one example: what the generic generator (`Matrix.value` in harness.ts) cannot
 * derive from the field types, namely the values that patterns, uniqueness and point 5's rules
 * need. Each hook is read from the example's spec text.
 */
export interface ExampleData {
  /** For test names. */
  title: string;
  source: string;
  /** Values of a new record of `entity`; `n` is unique per record. */
  values?: (entity: string, n: number) => Values;
  /** Values a record needs to take `transition` (besides being in its from-state): guards on dates, counts. */
  before?: (entity: string, transition: Transition) => Values;
  /** The body of a transition's call, when it takes one. */
  body?: (entity: string, transition: Transition) => Values | undefined;
  /** The owners of the record a reference field points at, when a rule ties them to the referring record's. */
  referenced?: (entity: string, field: string, record: Readonly<Values>) => Values;
  /**
   * The code a permitted transition is refused with by its guard (not by point 6), or null when it
   * goes through: the matrix's records satisfy every guard that does not depend on who asks.
   */
  guard?: (c: GuardCase) => string | null;
}

/** An ISO date `days` from today (UTC); negative for the past. */
export function inDays(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

function example(name: string): string {
  return readFileSync(new URL(`../../examples/${name}`, import.meta.url), 'utf8');
}

const LENDING_SOURCE = example('lending-desk.md');

/** Lending desk: Book's ISBN (unique, pattern) and shelf (pattern); Loan's dates for each transition. */
const LENDING_DATA: Omit<ExampleData, 'title' | 'source'> = {
  values: (entity, n): Values =>
    entity === 'Book'
      ? { isbn: `978${String(n).padStart(10, '0')}`, shelf: 'FIC-120', copies: 3 }
      : entity === 'Loan'
        ? { lent_on: inDays(0), due: inDays(14), renewals: 0 }
        : {},
  before: (_entity, t): Values => {
    switch (t.name) {
      case 'renew': // renewals < MAX_RENEWALS
        return { renewals: 0 };
      case 'mark overdue': // now > due
        return { lent_on: inDays(-20), due: inDays(-1) };
      case 'write off': // now - due > LOST_AFTER (8 weeks)
        return { lent_on: inDays(-80), due: inDays(-70) };
      default:
        return {};
    }
  },
  body: (_entity, t): Values | undefined => {
    switch (t.name) {
      case 'return':
        return { condition_note: 'Back in good order.' };
      default:
        return undefined;
    }
  },
};

/**
 * Blind review (the server's test fixture): reviewers `read except (speaker, bio)`, visitors
 * `read (title)`. Reviewers may here also update the abstract, since the matrix's update changes a
 * text field.
 */
const BLIND_REVIEW: ExampleData = {
  title: 'blind-review.md (server fixture)',
  source: readFileSync(new URL('../../packages/server/test/fixtures/blind-review.md', import.meta.url), 'utf8').replace(
    'update (score) ',
    'update (abstract, score)',
  ),
  values: (entity): Values => (entity === 'Talk' ? { score: 7 } : {}),
};

/**
 * The examples whose points 3 and 6 are shown, plus the lending desk with point 6 not shown (every
 * role named in points 2 and 4 blanked, as the checker requires, and the rule "members only",
 * which no user could pass without roles, left out), for the "no roles" branch.
 */
export const EXAMPLES: readonly ExampleData[] = [
  { title: 'lending-desk.md', source: LENDING_SOURCE, ...LENDING_DATA },
  BLIND_REVIEW,
  {
    title: 'lending-desk.md with point 6 not shown',
    source: LENDING_SOURCE.replace(
      /## 6\. Roles and permissions\n[\s\S]*?(?=\n## 7\.)/,
      '## 6. Roles and permissions\n\nNot shown.\n',
    )
      .replace(/\| (?:staff|member)(?:, (?:staff|member))* +(?=\|)/g, (cell) => `|${' '.repeat(cell.length - 1)}`)
      // A transition the app also takes by itself keeps `system`, without the roles beside it.
      .replace(/\| system(?:, (?:staff|member))+ +(?=\|)/g, (cell) => `| system${' '.repeat(cell.length - 8)}`)
      // "members only" reads borrower.roles, and without point 6 nobody has a role.
      .replace(/^\| members only .*\n/m, ''),
    ...LENDING_DATA,
  },
  {
    title: 'helpdesk.md',
    source: example('helpdesk.md'),
    values: (entity): Values =>
      // "resolve" needs size(resolution) >= MIN_RESOLUTION_LENGTH; started_at <= now.
      entity === 'Ticket' ? { resolution: 'Replaced the faulty network cable under the desk.' } : {},
    guard: ({ transition, record, actor, rolesOf }) => {
      // assign: "agent" in assignee.roles; start: assignee.id == user.id.
      if (transition.name === 'assign' && !rolesOf(record.assignee).includes('agent')) return 'TRANSITION_NOT_ALLOWED';
      if (transition.name === 'start' && record.assignee !== actor.userId) return 'TRANSITION_NOT_ALLOWED';
      return null;
    },
  },
  {
    title: 'expenses.md',
    source: example('expenses.md'),
    values: (entity): Values =>
      entity === 'Employee'
        ? { cost_center: 'CC-0420', single_claim_limit: 500, active: true }
        : entity === 'Expense'
          ? // Within the limit, no receipt needed (<= RECEIPT_THRESHOLD), spent in the past, home currency.
            { category: 'travel', amount: 12.5, currency: 'EUR', spent_on: inDays(-1) }
          : {},
    // The server evaluates a guard on the record before the transition's payload is applied, so
    // reject's size(decision_note) >= MIN_REASON_LENGTH needs the note on the record already.
    before: (_entity, t): Values => (t.name === 'reject' ? { decision_note: 'Not a business expense.' } : {}),
    body: (_entity, t): Values | undefined => {
      switch (t.name) {
        case 'approve':
          return { decision_note: 'Within policy, approved.' };
        case 'reject': // size(decision_note) >= MIN_REASON_LENGTH
          return { decision_note: 'Not a business expense.' };
        case 'send back':
          return { decision_note: 'Please attach the receipt.' };
        case 'pay':
          return { paid_at: new Date().toISOString() };
        default:
          return undefined;
      }
    },
    // "approver is the manager": the claim's Employee has its approver as manager.
    referenced: (entity, field, record): Values =>
      entity === 'Expense' && field === 'employee' ? { manager: record.approver ?? null } : {},
    guard: ({ transition, record, actor }) => {
      // submit: created_by.id == user.id; approve, reject, send back: approver.id == user.id (the
      // claim's employee is never the actor, so ALLOW_SELF_APPROVAL does not matter).
      if (transition.name === 'submit' && record.created_by !== actor.userId) return 'TRANSITION_NOT_ALLOWED';
      if (['approve', 'reject', 'send back'].includes(transition.name) && record.approver !== actor.userId) {
        return 'TRANSITION_NOT_ALLOWED';
      }
      return null;
    },
  },
];

/** The example with no entities. */
export const BLANK_SOURCE = example('blank.md');
