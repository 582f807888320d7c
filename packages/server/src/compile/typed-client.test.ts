import { readFileSync } from 'node:fs';
import { effectiveCalls } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { modelOf } from '../../test/helpers.ts';
import { compileJsonSchemas } from './json-schemas.ts';
import { compileRouteTable } from './route-table.ts';
import { typedClient } from './typed-client.ts';

const LENDING_DESK = readFileSync(new URL('../../../../examples/lending-desk.md', import.meta.url), 'utf8');

function clientOf(source: string): string {
  const model = modelOf(source);
  const { routes } = compileRouteTable(model, effectiveCalls(model), compileJsonSchemas(model), []);
  return typedClient(model, routes, 'spec.md');
}

/** The lines of one interface of the written client. */
function block(client: string, name: string): string {
  const start = client.indexOf(`export interface ${name} {`);
  expect(start, name).toBeGreaterThanOrEqual(0);
  return client.slice(start, client.indexOf('\n}\n', start));
}

describe('the typed client of a spec', () => {
  it('has a method for exactly the calls point 7 declares, each taking the fields its payload names', () => {
    const client = clientOf(LENDING_DESK);
    const loans = block(client, 'LoansApi');
    expect(loans).toContain(
      "create(fields: Pick<LoanCreate, 'book' | 'borrower' | 'lent_on' | 'due'>): Promise<Loan>;",
    );
    expect(loans).toContain("return(id: string, fields?: Pick<LoanUpdate, 'condition_note'>): Promise<Loan>;");
    expect(loans).toContain('markOverdue(id: string): Promise<Loan>;');
    // Point 7 declares no update nor delete of a loan: the client has none.
    expect(loans).not.toMatch(/\n {2}(update|delete)\(/);
    expect(block(client, 'LoanTransitionArgs')).toContain("'write off': [];");
    expect(block(client, 'BooksApi')).toContain(
      "update(id: string, changes: Pick<BookUpdate, 'title' | 'author' | 'copies' | 'summary' | 'cover' | 'shelf'>): Promise<Book>;",
    );
  });

  it('types the filters as the list accepts them, and the refusals as the catalogue codes', () => {
    const client = clientOf(LENDING_DESK);
    const filter = block(client, 'LoanFilter');
    expect(filter).toContain('state?: LoanState | readonly LoanState[];');
    expect(filter).toMatch(/due\?: string \| \{ from\?: string; to\?: string \};/);
    expect(client).toMatch(/export type ErrorCode = 'NOT_FOUND' \|[^\n]*'DUE_BEFORE_LENT'/);
    expect(client).toContain('export class NinepointError extends Error {');
  });

  it("has a method for each custom call of point 7, taking its payload's fields and typed with its answer", () => {
    const client = clientOf(readFileSync(new URL('../../../../examples/quotes.md', import.meta.url), 'utf8'));
    expect(block(client, 'QuotesApi')).toContain(
      "price(id: string, fields?: Pick<QuoteUpdate, 'discount'>): Promise<Quote>;",
    );
    // The call itself: the path with the id, the fields as its body.
    expect(client).toMatch(
      /price: \(id, fields\) => http\.call<Quote>\('POST', `\/api\/quotes\/\$\{segment\(id\)\}\/price`, \{ body: fields \?\? \{\} \}\),/,
    );
  });

  it('writes a client of a spec with no entities that has sign-in and events only', () => {
    const client = clientOf('# Specification: Nothing yet\n');
    expect(client).toContain('export type EntityName = never;');
    expect(block(client, 'Client')).toMatch(/^export interface Client \{\n {2}\/\*\* Signs in/);
  });
});
