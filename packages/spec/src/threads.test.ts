import { describe, expect, it } from 'vitest';
import { composeSnippet } from '../test/compose-snippet.ts';
import { checkSpec } from './check.ts';
import { threadOf, threadsOn } from './threads.ts';

const spec = (fields: string, entity = 'Message') =>
  composeSnippet(`## 3. Entities and their fields

### ${entity}

| field | type | rules |
| ----- | ---- | ----- |
${fields}

## 6. Roles and permissions

| role   | Book | Loan                 | ${entity}    |
| ------ | ---- | -------------------- | ------------ |
| staff  | all  | create, read, update | create, read |
| member | read | read own             | -            |
`);

describe('threads', () => {
  it('reads `thread` on a reference as a conversation on its record, with the first long text as the message', () => {
    const { model, diagnostics } = checkSpec(
      spec('| loan | Loan | required, thread |\n| subject | text | |\n| body | long text | required |'),
    );
    expect(diagnostics).toEqual([]);
    expect(threadOf(model, 'Message')).toEqual({
      entity: 'Message',
      parentField: 'loan',
      parent: 'Loan',
      textField: 'body',
    });
    expect(threadsOn(model, 'Loan').map((t) => t.entity)).toEqual(['Message']);
    expect(threadsOn(model, 'Book')).toEqual([]);
    expect(threadOf(model, 'Loan')).toBeUndefined();
  });

  it('refuses thread on a person, a text or the entity itself, and twice on one entity, with a hint', () => {
    const onUser = checkSpec(spec('| by | User | thread |\n| body | long text | |')).diagnostics;
    expect(onUser.map((d) => [d.code, d.message])).toEqual([
      [
        'invalid-thread',
        "Message.by is marked thread, but it is a person, not a reference to another entity's record.",
      ],
    ]);
    expect(onUser[0]?.hint).toMatch(/ticket \| Ticket \| required, thread/);
    const twice = checkSpec(spec('| loan | Loan | thread |\n| book | Book | thread |\n| body | text | |')).diagnostics;
    expect(twice.map((d) => d.code)).toEqual(['invalid-thread']);
    expect(twice[0]?.message).toBe(
      'Message is already a thread through loan; book cannot make it a thread of another.',
    );
  });

  it('asks for a text to hold the messages', () => {
    const { model, diagnostics } = checkSpec(spec('| loan | Loan | required, thread |\n| urgent | boolean | |'));
    expect(diagnostics.map((d) => d.code)).toEqual(['thread-without-text']);
    expect(diagnostics[0]?.hint).toBe('Add a field for the words of a message, e.g. "body | long text | required".');
    expect(threadOf(model, 'Message')).toBeUndefined();
  });
});
