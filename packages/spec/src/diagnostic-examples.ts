import type { ModuleFacts } from './code-modules.ts';
import type { DiagnosticCode } from './diagnostic-codes.ts';

/**
 * What each diagnostic means, with a spec that gives it and the same spec fixed: the source of
 * `docs/diagnostics.md` (`npm run docs:diagnostics` writes it; a test checks that the file is what
 * the script writes and that every example gives its code, and its fix none).
 */
export interface DiagnosticExample {
  /** What the diagnostic means and what to do about it, in Markdown (links relative to `docs/`). */
  about: string;
  /**
   * A spec that gives this code and no other. Unless `whole`, a snippet: its sections replace
   * the base spec's (`packages/spec/test/fixtures/docs-base.md`), and in points 3 and 4 its
   * `###` sub-sections replace or join the base's.
   */
  bad: string;
  /** The same spec corrected: it gives no diagnostic. */
  fixed: string;
  /** True when `bad` and `fixed` are whole specs, not snippets completed from the base. */
  whole?: true;
  /**
   * True when `bad` is too large to write out (it stands for a spec over the size limit): the
   * test checks the base spec grown past the limit instead.
   */
  large?: true;
  /**
   * For the diagnostics of modules beside the spec: what \`ninepoint check\` finds in the files
   * (\`checkModules\`), for the bad spec and the fixed one.
   */
  modules?: { bad: Record<string, ModuleFacts>; fixed: Record<string, ModuleFacts> };
}

/** One example per code: a new code without one does not type-check. */
export const DIAGNOSTIC_EXAMPLES: { readonly [code in DiagnosticCode]: DiagnosticExample } = {
  'missing-title': {
    about: `The first \`#\` heading names the product. Without one the product is "Untitled product".`,
    bad: `## 1. What the product does and for whom

Lets the staff of a small library lend books to members.

## 2. Screens and routes

Not shown.

## 3. Entities and their fields

Not shown.

## 4. States and transitions

Not shown.

## 5. Validation rules

Not shown.

## 6. Roles and permissions

Not shown.

## 7. The calls it makes

Not shown.

## 8. The error catalogue

Not shown.

## 9. Business constants and limits

Not shown.
`,
    fixed: `# Specification: Lending desk

## 1. What the product does and for whom

Lets the staff of a small library lend books to members.

## 2. Screens and routes

Not shown.

## 3. Entities and their fields

Not shown.

## 4. States and transitions

Not shown.

## 5. Validation rules

Not shown.

## 6. Roles and permissions

Not shown.

## 7. The calls it makes

Not shown.

## 8. The error catalogue

Not shown.

## 9. Business constants and limits

Not shown.
`,
    whole: true,
  },
  'missing-section': {
    about: `Every point should have its section, even when it is not shown, so a reader knows it was left out
on purpose. The missing point is treated as not shown.`,
    bad: `# Specification: Lending desk

## 1. What the product does and for whom

Lets the staff of a small library lend books to members.

## 2. Screens and routes

Not shown.

## 3. Entities and their fields

Not shown.

## 4. States and transitions

Not shown.

## 5. Validation rules

Not shown.

## 6. Roles and permissions

Not shown.

## 8. The error catalogue

Not shown.

## 9. Business constants and limits

Not shown.
`,
    fixed: `# Specification: Lending desk

## 1. What the product does and for whom

Lets the staff of a small library lend books to members.

## 2. Screens and routes

Not shown.

## 3. Entities and their fields

Not shown.

## 4. States and transitions

Not shown.

## 5. Validation rules

Not shown.

## 6. Roles and permissions

Not shown.

## 7. The calls it makes

Not shown.

## 8. The error catalogue

Not shown.

## 9. Business constants and limits

Not shown.
`,
    whole: true,
  },
  'unknown-section': {
    about: `Its content is ignored. Put extra material in a \`###\` sub-section of the point it belongs to,
or in prose.`,
    bad: `## Glossary

A *loan* is one copy of a book in a member's hands.
`,
    fixed: `## 1. What the product does and for whom

Lets the staff of a small library lend books to members.

### Glossary

A *loan* is one copy of a book in a member's hands.
`,
  },
  'duplicate-section': {
    about: `The second section is ignored. Merge the two.`,
    bad: `## 9. Business constants and limits

| name      | value |
| --------- | ----- |
| PAGE_SIZE | 25    |

## Limits

| name          | value |
| ------------- | ----- |
| MAX_PAGE_SIZE | 100   |
`,
    fixed: `## 9. Business constants and limits

| name          | value |
| ------------- | ----- |
| PAGE_SIZE     | 25    |
| MAX_PAGE_SIZE | 100   |
`,
  },
  'section-number-mismatch': {
    about: `Usually a section was moved or a number mistyped. The section is read as the point its title
names.`,
    bad: `## 5. Roles and permissions

| role   | Book | Loan                 |
| ------ | ---- | -------------------- |
| staff  | all  | create, read, update |
| member | read | read own             |

## 6. Validation rules

Not shown.
`,
    fixed: `## 5. Validation rules

Not shown.

## 6. Roles and permissions

| role   | Book | Loan                 |
| ------ | ---- | -------------------- |
| staff  | all  | create, read, update |
| member | read | read own             |
`,
  },
  'section-without-table': {
    about: `Points 2–9 are carried by tables; prose alone says nothing the app can run, so the point is
treated as not shown. Add the table, or say "Not shown." on purpose.`,
    bad: `## 7. The calls it makes

The usual REST calls for books and loans.
`,
    fixed: `## 7. The calls it makes

Not shown: the usual REST calls for books and loans are derived.
`,
  },
  'spec-too-large': {
    about: `A spec may be up to 2 MB (2,097,152 characters). Nothing in a larger file is checked. A real
product's spec is a few hundred lines; a file this large is usually generated content pasted in
by mistake.`,
    bad: `# Specification: Lending desk

## 1. What the product does and for whom

Lets the staff of a small library lend books to members.
… (and so on, for more than 2 MB)
`,
    fixed: `## 1. What the product does and for whom

Lets the staff of a small library lend books to members.
`,
    large: true,
  },
  'missing-column': {
    about: `The table's rows are not read. Each point's required columns are listed with the point above.`,
    bad: `## 2. Screens and routes

| route  | shows |
| ------ | ----- |
| /books | Book  |
`,
    fixed: `## 2. Screens and routes

| route  | screen | shows |
| ------ | ------ | ----- |
| /books | list   | Book  |
`,
  },
  'unknown-column': {
    about: `The column is ignored. Rename it to one of the point's columns, or to a documentation column
(\`meaning\`, \`notes\`, \`description\`, …).`,
    bad: `## 2. Screens and routes

| route  | screen | shows | audience |
| ------ | ------ | ----- | -------- |
| /books | list   | Book  | staff    |
`,
    fixed: `## 2. Screens and routes

| route  | screen | shows | who   |
| ------ | ------ | ----- | ----- |
| /books | list   | Book  | staff |
`,
  },
  'extra-cell': {
    about: `A bare \`|\` ends a cell, so a guard or rule written \`a || b\` is split into \`a\`, an empty cell and
\`b\`, and Markdown drops the cells beyond the header: the condition would lose its second half.
The diagnostic points at the \`|\` that opens the first cell beyond the header. Write CEL's \`||\`
as \`\\|\\|\` and a literal pipe as \`\\|\` (or add the missing column to the header).`,
    bad: `## 4. States and transitions

### Loan

| transition | from  | to       | who   | when            |
| ---------- | ----- | -------- | ----- | --------------- |
| lend       | (new) | out      | staff | book.copies > 0 || "staff" in borrower.roles |
| return     | out   | returned | staff |                 |
`,
    fixed: `## 4. States and transitions

### Loan

| transition | from  | to       | who   | when                                           |
| ---------- | ----- | -------- | ----- | ---------------------------------------------- |
| lend       | (new) | out      | staff | book.copies > 0 \\|\\| "staff" in borrower.roles |
| return     | out   | returned | staff |                                                |
`,
  },
  'empty-cell': {
    about: `Names, types, routes, states, codes, statuses, messages and values cannot be left out (\`-\` counts
as empty).`,
    bad: `## 3. Entities and their fields

### Book

| field  | type    | rules                       |
| ------ | ------- | --------------------------- |
| title  | text    | required, 1..200 characters |
| copies | integer | required                    |
| isbn   |         | unique                      |
`,
    fixed: `## 3. Entities and their fields

### Book

| field  | type    | rules                       |
| ------ | ------- | --------------------------- |
| title  | text    | required, 1..200 characters |
| copies | integer | required                    |
| isbn   | text    | unique                      |
`,
  },
  'misplaced-table': {
    about: `In points 3 and 4 each table belongs to an entity: put \`### EntityName\` right above it.`,
    bad: `## 4. States and transitions

| transition | from  | to       | who   | when |
| ---------- | ----- | -------- | ----- | ---- |
| lend       | (new) | out      | staff |      |
| return     | out   | returned | staff |      |
`,
    fixed: `## 4. States and transitions

### Loan

| transition | from  | to       | who   | when |
| ---------- | ----- | -------- | ----- | ---- |
| lend       | (new) | out      | staff |      |
| return     | out   | returned | staff |      |
`,
  },
  'invalid-name': {
    about: `See [Names](spec-format.md#names): entities are PascalCase, fields start lowercase and have no spaces, roles
and states are lowercase, constants and codes are UPPER_SNAKE_CASE. The same code is reported
when a creating transition's \`from\` cell mixes \`(new)\` with states.`,
    bad: `## 3. Entities and their fields

### Loan

| field    | type | rules    |
| -------- | ---- | -------- |
| book     | Book | required |
| borrower | User | required |
| Due date | date | required |
`,
    fixed: `## 3. Entities and their fields

### Loan

| field    | type | rules    |
| -------- | ---- | -------- |
| book     | Book | required |
| borrower | User | required |
| due_date | date | required |
`,
  },
  'duplicate-name': {
    about: `Entities, fields of one entity (compared without case), states and transitions of one machine,
rules, roles within one table, error codes, constants, routes and choice values must be
unique. Two entities whose plurals are the same (\`Person\`, \`People\`) also clash: they would share
a collection.`,
    bad: `## 3. Entities and their fields

### Book

| field  | type    | rules                       |
| ------ | ------- | --------------------------- |
| title  | text    | required, 1..200 characters |
| copies | integer | required                    |
| title  | text    | at most 200 characters      |
`,
    fixed: `## 3. Entities and their fields

### Book

| field    | type    | rules                       |
| -------- | ------- | --------------------------- |
| title    | text    | required, 1..200 characters |
| copies   | integer | required                    |
| subtitle | text    | at most 200 characters      |
`,
  },
  'reserved-name': {
    about: `See the reserved names under [Names](spec-format.md#names): the entity \`User\`, entities whose collection
Ninepoint serves, system fields and words that mean something in expressions.`,
    bad: `## 3. Entities and their fields

### Loan

| field | type | rules    |
| ----- | ---- | -------- |
| book  | Book | required |
| user  | User | required |
| due   | date | required |
`,
    fixed: `## 3. Entities and their fields

### Loan

| field    | type | rules    |
| -------- | ---- | -------- |
| book     | Book | required |
| borrower | User | required |
| due      | date | required |
`,
  },
  'unknown-entity': {
    about: `Entity names are case-sensitive and singular. The hint suggests the closest defined entity.`,
    bad: `## 2. Screens and routes

| route  | screen | shows |
| ------ | ------ | ----- |
| /books | list   | Books |
`,
    fixed: `## 2. Screens and routes

| route  | screen | shows |
| ------ | ------ | ----- |
| /books | list   | Book  |
`,
  },
  'unknown-field': {
    about: `Reported for fields named in rules' \`applies to\`, limits, screen filters, call payloads and
expressions (including \`book.field\` through a reference).`,
    bad: `## 5. Validation rules

| rule              | applies to    | condition     | error       |
| ----------------- | ------------- | ------------- | ----------- |
| due in the future | Loan.due_date | value > today | DUE_IN_PAST |

## 8. The error catalogue

| code        | status | message                             |
| ----------- | ------ | ----------------------------------- |
| DUE_IN_PAST | 422    | The due date must be in the future. |
`,
    fixed: `## 5. Validation rules

| rule              | applies to | condition     | error       |
| ----------------- | ---------- | ------------- | ----------- |
| due in the future | Loan.due   | value > today | DUE_IN_PAST |

## 8. The error catalogue

| code        | status | message                             |
| ----------- | ------ | ----------------------------------- |
| DUE_IN_PAST | 422    | The due date must be in the future. |
`,
  },
  'reveals-hidden': {
    about: `A rule, guard or limit answers every write that triggers it with pass or fail, so whoever
triggers it learns something about every value it reads: with \`value <= project.budget\`, 17
creates find a budget a member may not read by halving. A role that can trigger a rule (it may
create or change the entity, or take the transition) is warned of each field the condition reads,
on the record or through a reference, that the role may not read, and a limit is warned of when
it counts records the role may not read (it tells how many there are). Check only what the role
reads, let the role read it, count per a field that makes the counted records the role's own
(\`per borrower\`), or, when telling it is the point, say so in the rule's \`reveals\` column:
the paths as the condition reads them (\`project.budget\`), \`count\` for a limit's count, or
\`yes\`. A guard has no such column: write its condition as a rule on the transition
(\`Loan: lend\`) and mark that. Either way a refusal tells no more than the rule's code and
message (whose placeholders of hidden fields stay as written).`,
    bad: `## 5. Validation rules

| rule          | applies to | condition                | error    |
| ------------- | ---------- | ------------------------ | -------- |
| a few a title | Book       | at most 3 Book per title | CONFLICT |

## 6. Roles and permissions

| role   | Book             | Loan                 |
| ------ | ---------------- | -------------------- |
| staff  | all              | create, read, update |
| member | create, read own | read own             |
`,
    fixed: `## 5. Validation rules

| rule          | applies to | condition                | error    | reveals |
| ------------- | ---------- | ------------------------ | -------- | ------- |
| a few a title | Book       | at most 3 Book per title | CONFLICT | count   |

## 6. Roles and permissions

| role   | Book             | Loan                 |
| ------ | ---------------- | -------------------- |
| staff  | all              | create, read, update |
| member | create, read own | read own             |
`,
  },
  'unknown-role': {
    about: `Roles in \`who\` cells (screens and transitions) must be rows of the roles table, or \`anyone\`.
When point 6 is not shown there are no roles at all: leave \`who\` empty.`,
    bad: `## 2. Screens and routes

| route  | screen | shows | who       |
| ------ | ------ | ----- | --------- |
| /books | list   | Book  | librarian |
`,
    fixed: `## 2. Screens and routes

| route  | screen | shows | who   |
| ------ | ------ | ----- | ----- |
| /books | list   | Book  | staff |
`,
  },
  'unknown-state': {
    about: `Reported for states in screen filters, limits, and transitions when a states table declares the
states. An entity without a state machine has no states.`,
    bad: `## 2. Screens and routes

| route      | screen | shows                   | who   |
| ---------- | ------ | ----------------------- | ----- |
| /loans/out | list   | Loan where state = lent | staff |
`,
    fixed: `## 2. Screens and routes

| route      | screen | shows                  | who   |
| ---------- | ------ | ---------------------- | ----- |
| /loans/out | list   | Loan where state = out | staff |
`,
  },
  'unknown-transition': {
    about: `Reported for \`Entity: transition\` in rules and calls. A call cannot name the creating
transition: it runs through the entity's \`create\` call.`,
    bad: `## 7. The calls it makes

| method | path                     | payload | does            |
| ------ | ------------------------ | ------- | --------------- |
| GET    | /api/loans               |         | list Loan       |
| POST   | /api/loans/:id/give-back |         | Loan: give back |
`,
    fixed: `## 7. The calls it makes

| method | path                  | payload | does         |
| ------ | --------------------- | ------- | ------------ |
| GET    | /api/loans            |         | list Loan    |
| POST   | /api/loans/:id/return |         | Loan: return |
`,
  },
  'unknown-constant': {
    about: `Reported for constants in ranges, lengths, defaults, limits, expressions and \`{PLACEHOLDERS}\` in
messages.`,
    bad: `## 3. Entities and their fields

### Book

| field  | type    | rules                   |
| ------ | ------- | ----------------------- |
| title  | text    | required                |
| copies | integer | required, 0..MAX_COPIES |
`,
    fixed: `## 3. Entities and their fields

### Book

| field  | type    | rules                   |
| ------ | ------- | ----------------------- |
| title  | text    | required                |
| copies | integer | required, 0..MAX_COPIES |

## 9. Business constants and limits

| name       | value | meaning             |
| ---------- | ----- | ------------------- |
| MAX_COPIES | 50    | copies of one title |
`,
  },
  'unknown-error-code': {
    about: `A rule's error must be a code of point 8 or a [built-in code](spec-format.md#8-the-error-catalogue).`,
    bad: `## 5. Validation rules

| rule       | applies to | condition                                | error      |
| ---------- | ---------- | ---------------------------------------- | ---------- |
| loan limit | Loan       | at most 5 Loan in state out per borrower | LOAN_LIMIT |
`,
    fixed: `## 5. Validation rules

| rule       | applies to | condition                                | error      |
| ---------- | ---------- | ---------------------------------------- | ---------- |
| loan limit | Loan       | at most 5 Loan in state out per borrower | LOAN_LIMIT |

## 8. The error catalogue

| code       | status | message                                    |
| ---------- | ------ | ------------------------------------------ |
| LOAN_LIMIT | 409    | A member may hold at most 5 books at once. |
`,
  },
  'unknown-type': {
    about: `See [Field types](spec-format.md#field-types). Also reported for a choice with no values or with a value that
is not allowed.`,
    bad: `## 3. Entities and their fields

### Book

| field  | type        | rules    |
| ------ | ----------- | -------- |
| title  | string(200) | required |
| copies | integer     | required |
`,
    fixed: `## 3. Entities and their fields

### Book

| field  | type    | rules                            |
| ------ | ------- | -------------------------------- |
| title  | text    | required, at most 200 characters |
| copies | integer | required                         |
`,
  },
  'unknown-colour': {
    about: `A choice value may declare its colour in parentheses (\`choice of low (grey), high (red)\`), from a fixed
palette that reads on light and dark backgrounds: grey, blue, indigo, violet, grape, pink, red,
orange, yellow, lime, green, teal, cyan (\`gray\` and \`purple\` are read as grey and violet). A value
whose colour is not one of them keeps the colour of its place in the list; see
[Choice colours](spec-format.md#choice-colours).`,
    bad: `## 3. Entities and their fields

### Book

| field    | type                                      | rules    |
| -------- | ----------------------------------------- | -------- |
| title    | text                                      | required |
| copies   | integer                                   | required |
| shelf    | choice of new (blue), worn (gren)         |          |
`,
    fixed: `## 3. Entities and their fields

### Book

| field    | type                                      | rules    |
| -------- | ----------------------------------------- | -------- |
| title    | text                                      | required |
| copies   | integer                                   | required |
| shelf    | choice of new (blue), worn (green)        |          |
`,
  },
  'invalid-field-rule': {
    about: `A range on a field that is not a number, a length or pattern on a field that is not text, a
bound that is neither a number nor a number constant, or words the rules cell does not know.`,
    bad: `## 3. Entities and their fields

### Loan

| field    | type | rules           |
| -------- | ---- | --------------- |
| book     | Book | required        |
| borrower | User | required        |
| due      | date | required, 1..30 |
`,
    fixed: `## 3. Entities and their fields

### Loan

| field    | type    | rules           |
| -------- | ------- | --------------- |
| book     | Book    | required        |
| borrower | User    | required        |
| due      | date    | required        |
| days     | integer | required, 1..30 |
`,
  },
  'invalid-file-limit': {
    about: `A file field's limit the runtime cannot enforce: a size without a unit (KB, MB or GB), of
nothing or above 5 GB; a kind whose bytes the server cannot recognise (it decides a file's kind
from its bytes, never from its name), or one that is not an image on an image field; a count of
files on a field that holds one.`,
    bad: `## 3. Entities and their fields

### Loan

| field    | type | rules                         |
| -------- | ---- | ----------------------------- |
| book     | Book | required                      |
| borrower | User | required                      |
| due      | date | required                      |
| receipt  | file | at most 10 megs, pdf, png     |
`,
    fixed: `## 3. Entities and their fields

### Loan

| field    | type | rules                     |
| -------- | ---- | ------------------------- |
| book     | Book | required                  |
| borrower | User | required                  |
| due      | date | required                  |
| receipt  | file | at most 10 MB, pdf, png   |
`,
  },
  'invalid-default': {
    about: `A default must be a value of the field's type that passes its range, length and pattern; see
the defaults table under [Field rules](spec-format.md#field-rules).`,
    bad: `## 3. Entities and their fields

### Book

| field  | type    | rules                        |
| ------ | ------- | ---------------------------- |
| title  | text    | required                     |
| copies | integer | required, 0..50, default 100 |
`,
    fixed: `## 3. Entities and their fields

### Book

| field  | type    | rules                      |
| ------ | ------- | -------------------------- |
| title  | text    | required                   |
| copies | integer | required, 0..50, default 1 |
`,
  },
  'invalid-range': {
    about: `Also reported for a negative length.`,
    bad: `## 3. Entities and their fields

### Book

| field  | type    | rules            |
| ------ | ------- | ---------------- |
| title  | text    | required, 200..1 |
| copies | integer | required         |
`,
    fixed: `## 3. Entities and their fields

### Book

| field  | type    | rules            |
| ------ | ------- | ---------------- |
| title  | text    | required, 1..200 |
| copies | integer | required         |
`,
  },
  'invalid-pattern': {
    about: `Patterns use RE2 syntax (JavaScript's regular expressions without lookaround or
back-references, matched in linear time). An empty pattern is also reported.`,
    bad: `## 3. Entities and their fields

### Book

| field  | type    | rules                              |
| ------ | ------- | ---------------------------------- |
| title  | text    | required                           |
| copies | integer | required                           |
| isbn   | text    | unique, pattern ^(97[89][0-9]{10}$ |
`,
    fixed: `## 3. Entities and their fields

### Book

| field  | type    | rules                             |
| ------ | ------- | --------------------------------- |
| title  | text    | required                          |
| copies | integer | required                          |
| isbn   | text    | unique, pattern ^97[89][0-9]{10}$ |
`,
  },
  'invalid-thread': {
    about: `\`thread\` in a field's rules makes the entity's records a conversation on the record that field
names: the parent's page shows them as messages, newest last, with a box to reply. It goes on a
reference to another entity (not on \`User\`, a text or the entity itself), and on one field of an
entity. The entity is read as if the word were not there.`,
    bad: `## 3. Entities and their fields

### Message

| field | type      | rules              |
| ----- | --------- | ------------------ |
| loan  | text      | required, thread   |
| body  | long text | required           |

## 6. Roles and permissions

| role   | Book | Loan                 | Message      |
| ------ | ---- | -------------------- | ------------ |
| staff  | all  | create, read, update | create, read |
| member | read | read own             | -            |
`,
    fixed: `## 3. Entities and their fields

### Message

| field | type      | rules              |
| ----- | --------- | ------------------ |
| loan  | Loan      | required, thread   |
| body  | long text | required           |

## 6. Roles and permissions

| role   | Book | Loan                 | Message      |
| ------ | ---- | -------------------- | ------------ |
| staff  | all  | create, read, update | create, read |
| member | read | read own             | -            |
`,
  },
  'thread-without-text': {
    about: `A thread's records are messages, so the entity needs a field for their words: its first \`long text\`
field (else its first \`text\` field) is the message. Without one the conversation is not shown.`,
    bad: `## 3. Entities and their fields

### Message

| field  | type    | rules            |
| ------ | ------- | ---------------- |
| loan   | Loan    | required, thread |
| urgent | boolean |                  |

## 6. Roles and permissions

| role   | Book | Loan                 | Message      |
| ------ | ---- | -------------------- | ------------ |
| staff  | all  | create, read, update | create, read |
| member | read | read own             | -            |
`,
    fixed: `## 3. Entities and their fields

### Message

| field  | type      | rules            |
| ------ | --------- | ---------------- |
| loan   | Loan      | required, thread |
| body   | long text | required         |
| urgent | boolean   |                  |

## 6. Roles and permissions

| role   | Book | Loan                 | Message      |
| ------ | ---- | -------------------- | ------------ |
| staff  | all  | create, read, update | create, read |
| member | read | read own             | -            |
`,
  },
  'invalid-label': {
    about: `The label is left out and the field's name is shown instead. A label heads a list's column and
sits beside a form's input: keep it to a few words (at most 40 characters), put the explanation in
the \`meaning\` column, and give each field of an entity its own.`,
    bad: `## 3. Entities and their fields

### Book

| field  | type    | rules    | label  |
| ------ | ------- | -------- | ------ |
| title  | text    | required | Title  |
| copies | integer | required | Copies |
| isbn   | text    | unique   | Title  |
`,
    fixed: `## 3. Entities and their fields

### Book

| field  | type    | rules    | label   |
| ------ | ------- | -------- | ------- |
| title  | text    | required | Title   |
| copies | integer | required | Copies  |
| isbn   | text    | unique   | ISBN-13 |
`,
  },
  'no-initial-state': {
    about: `Without a creating transition, a new record would have no state.`,
    bad: `## 4. States and transitions

### Loan

| transition | from | to       | who   | when |
| ---------- | ---- | -------- | ----- | ---- |
| return     | out  | returned | staff |      |
`,
    fixed: `## 4. States and transitions

### Loan

| transition | from  | to       | who   | when |
| ---------- | ----- | -------- | ----- | ---- |
| lend       | (new) | out      | staff |      |
| return     | out   | returned | staff |      |
`,
  },
  'duplicate-initial-state': {
    about: `A new record starts in exactly one state, through one creating transition. To start records in
different situations, use one creating transition and further transitions out of its state.`,
    bad: `## 4. States and transitions

### Loan

| transition | from  | to       | who   | when |
| ---------- | ----- | -------- | ----- | ---- |
| lend       | (new) | out      | staff |      |
| walk-in    | (new) | out      | staff |      |
| return     | out   | returned | staff |      |
`,
    fixed: `## 4. States and transitions

### Loan

| transition | from  | to       | who   | when |
| ---------- | ----- | -------- | ----- | ---- |
| lend       | (new) | out      | staff |      |
| return     | out   | returned | staff |      |
`,
  },
  'unreachable-state': {
    about: `No chain of transitions leads from the creating transition's state to it, so no record can ever
be in it.`,
    bad: `## 4. States and transitions

### Loan

| state    |
| -------- |
| out      |
| returned |
| lost     |

| transition | from  | to       | who   | when |
| ---------- | ----- | -------- | ----- | ---- |
| lend       | (new) | out      | staff |      |
| return     | out   | returned | staff |      |
`,
    fixed: `## 4. States and transitions

### Loan

| state    |
| -------- |
| out      |
| returned |
| lost     |

| transition | from  | to       | who   | when |
| ---------- | ----- | -------- | ----- | ---- |
| lend       | (new) | out      | staff |      |
| return     | out   | returned | staff |      |
| write off  | out   | lost     | staff |      |
`,
  },
  'invalid-duration': {
    about: `The time an automatic transition waits (\`after …\` in point 4) is a number and a unit (seconds,
minutes, hours, days or weeks), or a point-9 constant holding one.`,
    bad: `## 4. States and transitions

### Loan

| transition | from  | to       | who    | when              |
| ---------- | ----- | -------- | ------ | ----------------- |
| lend       | (new) | out      | staff  |                   |
| return     | out   | returned | system | after three weeks |
`,
    fixed: `## 4. States and transitions

### Loan

| transition | from  | to       | who    | when          |
| ---------- | ----- | -------- | ------ | ------------- |
| lend       | (new) | out      | staff  |               |
| return     | out   | returned | system | after 3 weeks |
`,
  },
  'timeless-automatic-transition': {
    about: `The app takes an automatic transition when its condition becomes true; one that mentions
neither \`now\` nor \`today\` (nor waits \`after\` a time) would only ever hold because someone
changed the record, when a person's transition is the right tool.`,
    bad: `## 4. States and transitions

### Loan

| transition | from  | to       | who    | when            |
| ---------- | ----- | -------- | ------ | --------------- |
| lend       | (new) | out      | staff  |                 |
| return     | out   | returned | system | book.copies > 0 |
`,
    fixed: `## 4. States and transitions

### Loan

| transition | from  | to       | who    | when      |
| ---------- | ----- | -------- | ------ | --------- |
| lend       | (new) | out      | staff  |           |
| return     | out   | returned | system | now > due |
`,
  },
  'after-without-system': {
    about: `\`after 4 hours\` says when the app takes a transition by itself; it is no guard for people.`,
    bad: `## 4. States and transitions

### Loan

| transition | from  | to       | who   | when         |
| ---------- | ----- | -------- | ----- | ------------ |
| lend       | (new) | out      | staff |              |
| return     | out   | returned | staff | after 1 week |
`,
    fixed: `## 4. States and transitions

### Loan

| transition | from  | to       | who           | when         |
| ---------- | ----- | -------- | ------------- | ------------ |
| lend       | (new) | out      | staff         |              |
| return     | out   | returned | system, staff | after 1 week |
`,
  },
  'after-state-not-from': {
    about: `\`after 1 week in out\` waits in one of the states the transition leaves; a state it does not leave
is never one a record it takes is in.`,
    bad: `## 4. States and transitions

### Loan

| transition | from  | to       | who    | when                 |
| ---------- | ----- | -------- | ------ | -------------------- |
| lend       | (new) | out      | staff  |                      |
| return     | out   | returned | system | after 1 week in owed |
`,
    fixed: `## 4. States and transitions

### Loan

| transition | from  | to       | who    | when                |
| ---------- | ----- | -------- | ------ | ------------------- |
| lend       | (new) | out      | staff  |                     |
| return     | out   | returned | system | after 1 week in out |
`,
  },
  'automatic-creating-transition': {
    about: `The system takes transitions of records that exist; a record is created by a person or a call.`,
    bad: `## 4. States and transitions

### Loan

| transition | from  | to       | who           | when |
| ---------- | ----- | -------- | ------------- | ---- |
| lend       | (new) | out      | staff, system |      |
| return     | out   | returned | staff         |      |
`,
    fixed: `## 4. States and transitions

### Loan

| transition | from  | to       | who   | when |
| ---------- | ----- | -------- | ----- | ---- |
| lend       | (new) | out      | staff |      |
| return     | out   | returned | staff |      |
`,
  },
  'guard-field-never-set': {
    about: `A guard that mentions an empty field fails. A field is set when it has a default, when a role
may set it (point 6's \`create (…)\` and \`update (…)\` lists; every signed-in user when point 6 is
not shown) through a create or update call that carries it (point 7; the derived calls carry
every field), when a transition's payload carries it, or when a transition sets it (its \`sets\`
column). A guard naming a field set none of these ways refuses its transition every time.
(Entities nobody can create are left out: their guards never run.)`,
    bad: `## 3. Entities and their fields

### Loan

| field          | type | rules    |
| -------------- | ---- | -------- |
| book           | Book | required |
| borrower       | User | required |
| due            | date | required |
| condition_note | text |          |

## 4. States and transitions

### Loan

| transition | from  | to       | who   | when                     |
| ---------- | ----- | -------- | ----- | ------------------------ |
| lend       | (new) | out      | staff | book.copies > 0          |
| return     | out   | returned | staff | size(condition_note) > 3 |

## 6. Roles and permissions

| role   | Book | Loan                                             |
| ------ | ---- | ------------------------------------------------ |
| staff  | all  | create (book, borrower, due), read, update (due) |
| member | read | read own                                         |
`,
    fixed: `## 3. Entities and their fields

### Loan

| field          | type | rules    |
| -------------- | ---- | -------- |
| book           | Book | required |
| borrower       | User | required |
| due            | date | required |
| condition_note | text |          |

## 4. States and transitions

### Loan

| transition | from  | to       | who   | when                     |
| ---------- | ----- | -------- | ----- | ------------------------ |
| lend       | (new) | out      | staff | book.copies > 0          |
| return     | out   | returned | staff | size(condition_note) > 3 |

## 6. Roles and permissions

| role   | Book | Loan                                                             |
| ------ | ---- | ---------------------------------------------------------------- |
| staff  | all  | create (book, borrower, due), read, update (due, condition_note) |
| member | read | read own                                                         |
`,
  },
  'invalid-assignment': {
    about: `Each entry of a \`sets\` cell is a field name, \`=\`, and an expression; entries are separated by
\`;\`. A field is set at most once per transition. The creating transition (\`(new)\`) sets nothing:
a field a new record needs gets a \`default\` in point 3 (\`default today\`, \`default now\`,
\`default me\`).`,
    bad: `## 4. States and transitions

### Loan

| transition | from  | to       | who   | when            | sets         |
| ---------- | ----- | -------- | ----- | --------------- | ------------ |
| lend       | (new) | out      | staff | book.copies > 0 |              |
| return     | out   | returned | staff |                 | due == today |
`,
    fixed: `## 4. States and transitions

### Loan

| transition | from  | to       | who   | when            | sets        |
| ---------- | ----- | -------- | ----- | --------------- | ----------- |
| lend       | (new) | out      | staff | book.copies > 0 |             |
| return     | out   | returned | staff |                 | due = today |
`,
  },
  'system-field-assignment': {
    about: `Ninepoint keeps the system fields itself: the state changes through the transition's \`to\`
column, \`updated_at\` is the instant of every write. Set a declared field instead.`,
    bad: `## 4. States and transitions

### Loan

| transition | from  | to       | who   | when            | sets             |
| ---------- | ----- | -------- | ----- | --------------- | ---------------- |
| lend       | (new) | out      | staff | book.copies > 0 |                  |
| return     | out   | returned | staff |                 | updated_at = now |
`,
    fixed: `## 3. Entities and their fields

### Loan

| field       | type     | rules    |
| ----------- | -------- | -------- |
| book        | Book     | required |
| borrower    | User     | required |
| due         | date     | required |
| returned_at | datetime |          |

## 4. States and transitions

### Loan

| transition | from  | to       | who   | when            | sets              |
| ---------- | ----- | -------- | ----- | --------------- | ----------------- |
| lend       | (new) | out      | staff | book.copies > 0 |                   |
| return     | out   | returned | staff |                 | returned_at = now |
`,
  },
  'assignment-type': {
    about: `The expression's CEL type must fit the field: a timestamp for a date or date-time, \`user\` (or
another User field) for a User field, an integer for an integer, text for text, one of its choices
for a choice. \`null\` empties a field that is not required.`,
    bad: `## 4. States and transitions

### Loan

| transition | from  | to       | who   | when            | sets       |
| ---------- | ----- | -------- | ----- | --------------- | ---------- |
| lend       | (new) | out      | staff | book.copies > 0 |            |
| return     | out   | returned | staff |                 | due = user |
`,
    fixed: `## 4. States and transitions

### Loan

| transition | from  | to       | who   | when            | sets        |
| ---------- | ----- | -------- | ----- | --------------- | ----------- |
| lend       | (new) | out      | staff | book.copies > 0 |             |
| return     | out   | returned | staff |                 | due = today |
`,
  },
  'set-field-in-payload': {
    about: `What the transition sets is worked out after the payload is applied, so a value the caller sends
for that field is never kept. Leave the field out of the call's payload (the web app's dialog
does not ask for it either), or out of the transition's \`sets\`.`,
    bad: `## 4. States and transitions

### Loan

| transition | from  | to       | who   | when            | sets        |
| ---------- | ----- | -------- | ----- | --------------- | ----------- |
| lend       | (new) | out      | staff | book.copies > 0 |             |
| return     | out   | returned | staff |                 | due = today |

## 7. The calls it makes

| method | path                  | payload    | does         |
| ------ | --------------------- | ---------- | ------------ |
| POST   | /api/loans            | Loan       | create Loan  |
| POST   | /api/loans/:id/return | Loan (due) | Loan: return |
`,
    fixed: `## 4. States and transitions

### Loan

| transition | from  | to       | who   | when            | sets        |
| ---------- | ----- | -------- | ----- | --------------- | ----------- |
| lend       | (new) | out      | staff | book.copies > 0 |             |
| return     | out   | returned | staff |                 | due = today |

## 7. The calls it makes

| method | path                  | payload | does         |
| ------ | --------------------- | ------- | ------------ |
| POST   | /api/loans            | Loan    | create Loan  |
| POST   | /api/loans/:id/return |         | Loan: return |
`,
  },
  'expression-syntax': {
    about: `See [Expressions](spec-format.md#expressions). A frequent cause is \`||\` written unescaped in a table cell,
which splits the cell: write \`\\|\\|\`.`,
    bad: `## 4. States and transitions

### Loan

| transition | from  | to       | who   | when             |
| ---------- | ----- | -------- | ----- | ---------------- |
| lend       | (new) | out      | staff | book.copies >> 0 |
| return     | out   | returned | staff |                  |
`,
    fixed: `## 4. States and transitions

### Loan

| transition | from  | to       | who   | when            |
| ---------- | ----- | -------- | ----- | --------------- |
| lend       | (new) | out      | staff | book.copies > 0 |
| return     | out   | returned | staff |                 |
`,
  },
  'expression-type': {
    about: `Operands must have matching types (see [Types](spec-format.md#types)), and the whole expression must be
\`true\` or \`false\`.`,
    bad: `## 4. States and transitions

### Loan

| transition | from  | to       | who   | when        |
| ---------- | ----- | -------- | ----- | ----------- |
| lend       | (new) | out      | staff | book.copies |
| return     | out   | returned | staff | due > "now" |
`,
    fixed: `## 4. States and transitions

### Loan

| transition | from  | to       | who   | when            |
| ---------- | ----- | -------- | ----- | --------------- |
| lend       | (new) | out      | staff | book.copies > 0 |
| return     | out   | returned | staff | due > now       |
`,
  },
  'invalid-limit': {
    about: `Write \`at most N Entity per field\` or \`at most N Entity in state s1, s2 per field\`, counting
records of the rule's own entity. Several fields are separated by commas or \`and\`
(\`per talk, reviewer\`); a period comes last and names a date or date-time field
(\`per doctor per day of starts_at\`): \`day\`, \`week\`, \`month\` or \`year\`. Each field is named once.`,
    bad: `## 5. Validation rules

| rule       | applies to | condition                        | error      |
| ---------- | ---------- | -------------------------------- | ---------- |
| loan limit | Loan       | at most 5 Loan for each borrower | LOAN_LIMIT |

## 8. The error catalogue

| code       | status | message                                    |
| ---------- | ------ | ------------------------------------------ |
| LOAN_LIMIT | 409    | A member may hold at most 5 books at once. |
`,
    fixed: `## 5. Validation rules

| rule       | applies to | condition                                | error      |
| ---------- | ---------- | ---------------------------------------- | ---------- |
| loan limit | Loan       | at most 5 Loan in state out per borrower | LOAN_LIMIT |

## 8. The error catalogue

| code       | status | message                                    |
| ---------- | ------ | ------------------------------------------ |
| LOAN_LIMIT | 409    | A member may hold at most 5 books at once. |
`,
  },
  'invalid-target': {
    about: `Write an entity (\`Loan\`), one of its fields (\`Loan.due\`) or one of its transitions
(\`Loan: return\`). A rule cannot reach into a referenced record's field; write an expression
instead.`,
    bad: `## 5. Validation rules

| rule           | applies to       | condition | error     |
| -------------- | ---------------- | --------- | --------- |
| lendable books | Loan.book.copies | value > 0 | NO_COPIES |

## 8. The error catalogue

| code      | status | message                          |
| --------- | ------ | -------------------------------- |
| NO_COPIES | 409    | The library has no copy to lend. |
`,
    fixed: `## 5. Validation rules

| rule           | applies to | condition       | error     |
| -------------- | ---------- | --------------- | --------- |
| lendable books | Loan       | book.copies > 0 | NO_COPIES |

## 8. The error catalogue

| code      | status | message                          |
| --------- | ------ | -------------------------------- |
| NO_COPIES | 409    | The library has no copy to lend. |
`,
  },
  'invalid-screen': {
    about: `Also reported for a home screen that names an entity, and for a board over an entity without a
state machine.`,
    bad: `## 2. Screens and routes

| route  | screen | shows |
| ------ | ------ | ----- |
| /books | table  | Book  |
| /shelf | board  | Book  |
`,
    fixed: `## 2. Screens and routes

| route  | screen | shows |
| ------ | ------ | ----- |
| /books | list   | Book  |
| /loans | board  | Loan  |
`,
  },
  'invalid-dashboard': {
    about: `Reported for a sum of a field that is not a number, figures by a field with too many values to
chart (text, dates), or by \`state\` for an entity without states. The hint lists the fields that
fit.`,
    bad: `## 2. Screens and routes

| route     | screen    | shows                   |
| --------- | --------- | ----------------------- |
| /overview | dashboard | Book: sum of title      |
`,
    fixed: `## 2. Screens and routes

| route     | screen    | shows                   |
| --------- | --------- | ----------------------- |
| /overview | dashboard | Book: sum of copies     |
`,
  },
  'invalid-route': {
    about: `Routes start with \`/\` and use lowercase words, digits, \`-\` and \`:params\`. A detail screen needs
a parameter to say which record it shows.`,
    bad: `## 2. Screens and routes

| route       | screen | shows |
| ----------- | ------ | ----- |
| /Books      | list   | Book  |
| /books/show | detail | Book  |
`,
    fixed: `## 2. Screens and routes

| route      | screen | shows |
| ---------- | ------ | ----- |
| /books     | list   | Book  |
| /books/:id | detail | Book  |
`,
  },
  'invalid-filter': {
    about: `Write \`Entity where field = value\`, joined by \`and\`. \`me\` needs a field that references \`User\`
(or \`created_by\`); a choice field needs one of its values.`,
    bad: `## 2. Screens and routes

| route     | screen | shows                     | who    |
| --------- | ------ | ------------------------- | ------ |
| /my/loans | list   | Loan where borrower is me | member |
| /my/books | list   | Book where title = me     | member |
`,
    fixed: `## 2. Screens and routes

| route     | screen | shows                      | who    |
| --------- | ------ | -------------------------- | ------ |
| /my/loans | list   | Loan where borrower = me   | member |
| /my/books | list   | Book where created_by = me | member |
`,
  },
  'invalid-permission': {
    about: `The words are \`create\`, \`read\`, \`update\`, \`delete\` (the last three optionally followed by
\`own\`), \`all\` and \`-\`. \`create own\` means nothing (a new record is always the creator's own),
and the \`anyone\` row cannot use \`own\`. \`delete\` names no fields; only \`read\` may name the fields
it leaves out (\`read except (notes)\`, with at least one field); and a cell says \`read\` once when
it names fields. \`via\` needs \`own\`, and neither \`via\` nor \`while\` may follow \`create\`.`,
    bad: `## 6. Roles and permissions

| role   | Book | Loan               |
| ------ | ---- | ------------------ |
| staff  | all  | create, read, edit |
| member | read | read owned         |
`,
    fixed: `## 6. Roles and permissions

| role   | Book | Loan                 |
| ------ | ---- | -------------------- |
| staff  | all  | create, read, update |
| member | read | read own             |
`,
  },
  'invalid-joins': {
    about: `A \`joins\` cell is \`sign up\`, \`sign up\` with the email domains it accepts in parentheses,
\`invitation\`, \`-\` or empty. The \`anyone\` row joins nothing.`,
    bad: `## 6. Roles and permissions

| role   | Book | Loan | joins            |
| ------ | ---- | ---- | ---------------- |
| member | read | -    | by application   |
| staff  | all  | all  | sign up (clinic) |
`,
    fixed: `## 6. Roles and permissions

| role   | Book | Loan | joins                    |
| ------ | ---- | ---- | ------------------------ |
| member | read | -    | invitation               |
| staff  | all  | all  | sign up (clinic.example) |
`,
  },
  'invalid-people': {
    about: `A \`people\` cell lists, with commas, \`invite\` (into any role), \`invite (…)\` naming the roles an
invitation from the role may give (not \`anyone\`), and \`manage\`; or it is \`-\` or empty. The
\`anyone\` row may not invite or manage.`,
    bad: `## 6. Roles and permissions

| role   | Book | Loan | people            |
| ------ | ---- | ---- | ----------------- |
| staff  | all  | all  | promote, invite() |
| member | read | -    | -                 |
`,
    fixed: `## 6. Roles and permissions

| role   | Book | Loan | people          |
| ------ | ---- | ---- | --------------- |
| staff  | all  | all  | manage          |
| member | read | -    | invite (member) |
`,
  },
  'invalid-sign-in': {
    about: `A \`sign in\` cell says how holders of the role sign in: \`requires two-factor\` (they must set up
a code from an authenticator app, and may do nothing else until they have), or \`-\`, \`password\` or
empty (a second factor is each person's own choice). Signed-out visitors (\`anyone\`) do not sign in.`,
    bad: `## 6. Roles and permissions

| role   | Book | Loan | sign in         |
| ------ | ---- | ---- | --------------- |
| staff  | all  | all  | needs a token   |
| member | read | -    | -               |
`,
    fixed: `## 6. Roles and permissions

| role   | Book | Loan | sign in             |
| ------ | ---- | ---- | ------------------- |
| staff  | all  | all  | requires two-factor |
| member | read | -    | -                   |
`,
  },
  'invalid-count': {
    about: `Write \`count(Entity where field = this)\`, where \`field\` of \`Entity\` refers to the entity the
expression is about, or \`count(Entity where field = user)\` for a field referring to \`User\`;
\`in state s1, s2\` may follow the entity.`,
    bad: `## 5. Validation rules

| rule          | applies to | condition                        | error     |
| ------------- | ---------- | -------------------------------- | --------- |
| busy borrower | Loan       | count(Loan where due = this) < 3 | FORBIDDEN |
`,
    fixed: `## 5. Validation rules

| rule          | applies to | condition                             | error     |
| ------------- | ---------- | ------------------------------------- | --------- |
| busy borrower | Loan       | count(Loan where borrower = user) < 3 | FORBIDDEN |
`,
  },
  'invalid-reference-path': {
    about: `In a screen filter (\`Loan where book.added_by = me\`) and in \`own via\` (point 6), each step but
the last must refer to another entity, whose field the next step names; the last must refer to
\`User\` (or be \`created_by\`).`,
    bad: `## 6. Roles and permissions

| role   | Book | Loan                     |
| ------ | ---- | ------------------------ |
| staff  | all  | create, read, update     |
| member | read | read own via book.copies |
`,
    fixed: `## 6. Roles and permissions

| role   | Book | Loan                         |
| ------ | ---- | ---------------------------- |
| staff  | all  | create, read, update         |
| member | read | read own via book.created_by |
`,
  },
  'entity-without-permissions': {
    about: `With roles in point 6, an entity that no role (not even \`anyone\`) is granted is unreachable:
nobody can create, see or change its records.`,
    bad: `## 6. Roles and permissions

| role   | Book |
| ------ | ---- |
| staff  | all  |
| member | read |
`,
    fixed: `## 6. Roles and permissions

| role   | Book | Loan                 |
| ------ | ---- | -------------------- |
| staff  | all  | create, read, update |
| member | read | read own             |
`,
  },
  'unsettable-field': {
    about: `\`create (…)\` names the fields the role sets; every other field takes its default. A required
field with no default that the list leaves out would be missing from every record the role
creates, so every create would be refused. Name the field, or give it a default in point 3.
Without a list, \`create\` sets the fields the role reads: \`create, read except (title)\` cannot set
\`title\` either.`,
    bad: `## 6. Roles and permissions

| role   | Book                  | Loan     |
| ------ | --------------------- | -------- |
| staff  | all                   | all      |
| member | create (copies), read | read own |
`,
    fixed: `## 6. Roles and permissions

| role   | Book                         | Loan     |
| ------ | ---------------------------- | -------- |
| staff  | all                          | all      |
| member | create (title, copies), read | read own |
`,
  },
  'own-without-owner': {
    about: `\`own\` without \`via\` means the records the user created (\`created_by\`) or that name them in a
field referring to \`User\`. On an entity without such a field, a role that does not create its
records owns none, so \`read own\` gives it nothing, silently. Say whose records they are with
\`own via\` and the chain of references that leads to the user: the hint names the chain the
role's own screen filters by (\`Loan where borrower.account = me\`), else the first one found.`,
    bad: `## 2. Screens and routes

| route     | screen | shows                            | who    |
| --------- | ------ | -------------------------------- | ------ |
| /loans    | list   | Loan                             | staff  |
| /my/loans | list   | Loan where borrower.account = me | member |

## 3. Entities and their fields

### Member

| field   | type | rules            |
| ------- | ---- | ---------------- |
| name    | text | required         |
| account | User | required, unique |

### Loan

| field    | type   | rules    |
| -------- | ------ | -------- |
| book     | Book   | required |
| borrower | Member | required |
| due      | date   | required |

## 6. Roles and permissions

| role   | Book | Member   | Loan                 |
| ------ | ---- | -------- | -------------------- |
| staff  | all  | all      | create, read, update |
| member | read | read own | read own             |
`,
    fixed: `## 2. Screens and routes

| route     | screen | shows                            | who    |
| --------- | ------ | -------------------------------- | ------ |
| /loans    | list   | Loan                             | staff  |
| /my/loans | list   | Loan where borrower.account = me | member |

## 3. Entities and their fields

### Member

| field   | type | rules            |
| ------- | ---- | ---------------- |
| name    | text | required         |
| account | User | required, unique |

### Loan

| field    | type   | rules    |
| -------- | ------ | -------- |
| book     | Book   | required |
| borrower | Member | required |
| due      | date   | required |

## 6. Roles and permissions

| role   | Book | Member   | Loan                              |
| ------ | ---- | -------- | --------------------------------- |
| staff  | all  | all      | create, read, update              |
| member | read | read own | read own via borrower.account     |
`,
  },
  'author-reveals-hidden-field': {
    about: `\`read except (borrower)\` hides who a loan is for, but \`created_by\` stays visible, and when the
people a \`User\` field names create their own records (a role that reads only its own records
may create them), \`created_by\` names them as surely. Hide it too: \`read except (borrower,
created_by)\` keeps authors anonymous to the role, in records and in history (\`by\`), and the user
directory names nobody to it that no record it reads shows. Staff entering records for others
(a role that reads every record) give nothing away and are not warned of.`,
    bad: `## 6. Roles and permissions

| role   | Book | Loan                                                          |
| ------ | ---- | ------------------------------------------------------------- |
| staff  | all  | create (book, borrower, due), read except (borrower), update  |
| member | read | create, read own                                              |
`,
    fixed: `## 6. Roles and permissions

| role   | Book | Loan                                                                      |
| ------ | ---- | ------------------------------------------------------------------------- |
| staff  | all  | create (book, borrower, due), read except (borrower, created_by), update  |
| member | read | create, read own                                                          |
`,
  },
  'invalid-call': {
    about: `Methods are \`GET\`, \`POST\`, \`PUT\`, \`PATCH\` and \`DELETE\`; paths look like \`/api/books\`,
\`/api/books/:id\`, \`/api/books/:id/history\` or \`/api/loans/:id/return\`; actions are \`list\`,
\`get\`, \`create\`, \`update\`, \`delete\` or \`history\` with an entity, or \`Entity: transition\`.`,
    bad: `## 7. The calls it makes

| method | path           | payload | does        |
| ------ | -------------- | ------- | ----------- |
| FETCH  | /api/books     |         | list Book   |
| POST   | /books         | Book    | create Book |
| GET    | /api/books/:id |         | show Book   |
`,
    fixed: `## 7. The calls it makes

| method | path           | payload | does        |
| ------ | -------------- | ------- | ----------- |
| GET    | /api/books     |         | list Book   |
| POST   | /api/books     | Book    | create Book |
| GET    | /api/books/:id |         | get Book    |
`,
  },
  'call-mismatch': {
    about: `Each action has one shape (see the table in [point 7](spec-format.md#7-the-calls-it-makes)). Also reported
when a transition call's last segment is not the transition's slug, when one entity's calls use
two collections, when a GET or DELETE has a payload, and when the payload is another entity.`,
    bad: `## 7. The calls it makes

| method | path                   | payload | does         |
| ------ | ---------------------- | ------- | ------------ |
| GET    | /api/books             | Book    | create Book  |
| POST   | /api/loans/:id/returns |         | Loan: return |
`,
    fixed: `## 7. The calls it makes

| method | path                  | payload | does         |
| ------ | --------------------- | ------- | ------------ |
| POST   | /api/books            | Book    | create Book  |
| POST   | /api/loans/:id/return |         | Loan: return |
`,
  },
  'duplicate-call': {
    about: `One method and path can do one thing. Paths that differ only in a parameter's name
(\`/api/books/:id\`, \`/api/books/:bookId\`) are the same path.`,
    bad: `## 7. The calls it makes

| method | path               | payload       | does        |
| ------ | ------------------ | ------------- | ----------- |
| PATCH  | /api/books/:id     | Book (title)  | update Book |
| PATCH  | /api/books/:bookId | Book (copies) | update Book |
`,
    fixed: `## 7. The calls it makes

| method | path           | payload              | does        |
| ------ | -------------- | -------------------- | ----------- |
| PATCH  | /api/books/:id | Book (title, copies) | update Book |
`,
  },
  'invalid-event': {
    about: `The \`on\` column of a notification or call to another system names a write: \`create Loan\`,
\`update Loan\`, \`delete Loan\`, or a transition as \`Loan: return\`.`,
    bad: `## 7. The calls it makes

### Notifications

| on          | to       | subject  | text             |
| ----------- | -------- | -------- | ---------------- |
| lend a Loan | borrower | Borrowed | It is due {due}. |
`,
    fixed: `## 7. The calls it makes

### Notifications

| on          | to       | subject  | text             |
| ----------- | -------- | -------- | ---------------- |
| create Loan | borrower | Borrowed | It is due {due}. |
`,
  },
  'invalid-recipient': {
    about: `A notification is sent to people: a \`User\` field, a chain of references ending in one
(\`book.owner\`), \`every <role>\`, or an address from a text constant or \`env NAME\`.`,
    bad: `## 7. The calls it makes

### Notifications

| on          | to   | subject  | text             |
| ----------- | ---- | -------- | ---------------- |
| create Loan | book | Borrowed | It is due {due}. |
`,
    fixed: `## 7. The calls it makes

### Notifications

| on          | to       | subject  | text             |
| ----------- | -------- | -------- | ---------------- |
| create Loan | borrower | Borrowed | It is due {due}. |
`,
  },
  'invalid-schedule': {
    about: `Point 7's \`### Schedules\` names recurring jobs, each run in words (\`every day at 07:00\`,
\`every monday at 09:00\`, \`every weekday at 08:30\`, \`every hour\`, \`every 15 minutes\`, \`every month on
the 1st at 06:00\`) or in five cron fields (\`0 7 * * *\`), in the product's \`TIME_ZONE\`. A call to
another system on \`schedule <job>\` is made each time the job falls due.`,
    bad: `## 7. The calls it makes

### Schedules

| job            | every                |
| -------------- | -------------------- |
| nightly export | every night at 02:00 |
`,
    fixed: `## 7. The calls it makes

### Schedules

| job            | every              |
| -------------- | ------------------ |
| nightly export | every day at 02:00 |
`,
  },
  'invalid-module': {
    about: `A custom call (\`code pricing.ts\`) or a hook in point 7's \`### Code\` names a TypeScript module
beside the spec: a \`.ts\` file, relative to the spec's folder and inside it (\`pricing.ts\`,
\`code/pricing.ts\`), and optionally one of its exports (\`price from pricing.ts\`). An absolute path or
one climbing out with \`..\` is refused: the spec and its code move together, and a spec cannot run
the rest of the server's disk.`,
    bad: `## 7. The calls it makes

### Code

| on                | code                |
| ----------------- | ------------------- |
| before create Loan | ../shared/checks.ts |
`,
    fixed: `## 7. The calls it makes

### Code

| on                 | code            |
| ------------------ | --------------- |
| before create Loan | code/checks.ts |
`,
  },
  'missing-module': {
    about: `\`ninepoint check\` (and \`serve\` and \`dev\` at start) loads each module the spec names, from the
spec's folder, with Node's own TypeScript (type stripping). A file that is not there, or that
fails to load (a syntax error, a TypeScript feature type stripping cannot erase such as an
\`enum\`, an import that is not found), is this error. The example below supposes \`checks.ts\` is
not beside the spec, then that it is.`,
    bad: `## 7. The calls it makes

### Code

| on                 | code      |
| ------------------ | --------- |
| before create Loan | checks.ts |
`,
    fixed: `## 7. The calls it makes

### Code

| on                 | code      |
| ------------------ | --------- |
| before create Loan | checks.ts |
`,
    modules: {
      bad: { 'checks.ts': { found: false, why: 'is not there' } },
      fixed: { 'checks.ts': { found: true, exports: { default: 'hook' } } },
    },
  },
  'missing-export': {
    about: `The module is there, but the export the spec names is not, is not a function, or was made for
another use: a custom call's export is made with \`defineCall\`, a hook's with \`defineHook\`, a
scheduled job's with \`defineJob\` (each gives its function the context it will get). \`pricing.ts\`
names the default export; \`price from pricing.ts\` the export \`price\`. The example supposes
\`checks.ts\` exports only \`checkLoan\`.`,
    bad: `## 7. The calls it makes

### Code

| on                 | code                   |
| ------------------ | ---------------------- |
| before create Loan | checkLan from checks.ts |
`,
    fixed: `## 7. The calls it makes

### Code

| on                 | code                    |
| ------------------ | ----------------------- |
| before create Loan | checkLoan from checks.ts |
`,
    modules: {
      bad: { 'checks.ts': { found: true, exports: { checkLoan: 'hook' } } },
      fixed: { 'checks.ts': { found: true, exports: { checkLoan: 'hook' } } },
    },
  },
  'invalid-webhook': {
    about: `A call to another system goes to a constant holding an absolute \`http:\` or \`https:\` URL, or to
\`env NAME\`; its method is \`POST\`, \`PUT\` or \`PATCH\`; its body is empty (the whole record) or
\`Loan (id, due)\`.`,
    bad: `## 7. The calls it makes

### Calls to other systems

| on          | url         | secret            |
| ----------- | ----------- | ----------------- |
| create Loan | LEDGER_HOOK | env LEDGER_SECRET |

## 9. Business constants and limits

| name        | value          |
| ----------- | -------------- |
| LEDGER_HOOK | "/hooks/loans" |
`,
    fixed: `## 7. The calls it makes

### Calls to other systems

| on          | url         | secret            |
| ----------- | ----------- | ----------------- |
| create Loan | LEDGER_HOOK | env LEDGER_SECRET |

## 9. Business constants and limits

| name        | value                                    |
| ----------- | ---------------------------------------- |
| LEDGER_HOOK | "https://ledger.example.com/hooks/loans" |
`,
  },
  'secret-in-spec': {
    about: `A spec is shared, versioned and shown in the Studio: a secret written in it is no secret. Set the
\`whsec_…\` secret in the server's environment and name the variable.`,
    bad: `## 7. The calls it makes

### Calls to other systems

| on          | url                 | secret                                 |
| ----------- | ------------------- | -------------------------------------- |
| create Loan | env LEDGER_HOOK_URL | whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw |
`,
    fixed: `## 7. The calls it makes

### Calls to other systems

| on          | url                 | secret                 |
| ----------- | ------------------- | ---------------------- |
| create Loan | env LEDGER_HOOK_URL | env LEDGER_HOOK_SECRET |
`,
  },
  'invalid-status': {
    about: `An error answer needs an error status: 422 for a broken rule, 409 for a conflict or limit, 403
for a refusal, 5xx for a fault on the server's side.`,
    bad: `## 5. Validation rules

| rule       | applies to | condition                                | error      |
| ---------- | ---------- | ---------------------------------------- | ---------- |
| loan limit | Loan       | at most 5 Loan in state out per borrower | LOAN_LIMIT |

## 8. The error catalogue

| code       | status | message                                    |
| ---------- | ------ | ------------------------------------------ |
| LOAN_LIMIT | 200    | A member may hold at most 5 books at once. |
`,
    fixed: `## 5. Validation rules

| rule       | applies to | condition                                | error      |
| ---------- | ---------- | ---------------------------------------- | ---------- |
| loan limit | Loan       | at most 5 Loan in state out per borrower | LOAN_LIMIT |

## 8. The error catalogue

| code       | status | message                                    |
| ---------- | ------ | ------------------------------------------ |
| LOAN_LIMIT | 409    | A member may hold at most 5 books at once. |
`,
  },
  'unknown-placeholder': {
    about: `A lowercase \`{placeholder}\` must be a field of an entity whose rules use the code, or one of the
runtime's placeholders (\`field\`, \`entity\`, \`id\`, \`state\`, \`transition\`, \`min\`, \`max\`, \`values\`,
\`type\`, \`value\`, \`limit\`, \`detail\`). Otherwise the message would show it unfilled.`,
    bad: `## 5. Validation rules

| rule              | applies to | condition   | error       |
| ----------------- | ---------- | ----------- | ----------- |
| due in the future | Loan       | due > today | DUE_IN_PAST |

## 8. The error catalogue

| code        | status | message                          |
| ----------- | ------ | -------------------------------- |
| DUE_IN_PAST | 422    | {due_date} is not in the future. |
`,
    fixed: `## 5. Validation rules

| rule              | applies to | condition   | error       |
| ----------------- | ---------- | ----------- | ----------- |
| due in the future | Loan       | due > today | DUE_IN_PAST |

## 8. The error catalogue

| code        | status | message                     |
| ----------- | ------ | --------------------------- |
| DUE_IN_PAST | 422    | {due} is not in the future. |
`,
  },
  'unknown-time-zone': {
    about: `\`TIME_ZONE\` in point 9 makes \`today\`, limits per day, week or month and \`getHours()\` follow the
local calendar of that zone, daylight saving included; without it they follow UTC. Its value is a
name from the IANA time zone database, such as \`Europe/Berlin\` or \`America/New_York\`.`,
    bad: `## 9. Business constants and limits

| name      | value         |
| --------- | ------------- |
| TIME_ZONE | Europe/Berlim |
`,
    fixed: `## 9. Business constants and limits

| name      | value         |
| --------- | ------------- |
| TIME_ZONE | Europe/Berlin |
`,
  },
  'invalid-constant': {
    about: `[Runtime settings](spec-format.md#runtime-settings) take whole numbers within their range, and \`PAGE_SIZE\`
may not exceed \`MAX_PAGE_SIZE\`. A value that starts like a date must be a date that exists
(\`2026-02-30\` does not) or an ISO 8601 date-time with its zone (\`2026-03-01T09:00:00Z\`); quote
it to mean text.`,
    bad: `## 9. Business constants and limits

| name                 | value   |
| -------------------- | ------- |
| PAGE_SIZE            | 500     |
| SESSION_IDLE_MINUTES | 8 hours |
`,
    fixed: `## 9. Business constants and limits

| name                 | value |
| -------------------- | ----- |
| PAGE_SIZE            | 500   |
| MAX_PAGE_SIZE        | 1000  |
| SESSION_IDLE_MINUTES | 480   |
`,
  },
  'unused-error-code': {
    about: `No rule or guard reports it, so no user will ever see it. Use it in a rule of point 5 or as a
guard's error in point 4, or remove it.
(Built-in codes listed to override them are used by the runtime and never draw this warning.)`,
    bad: `## 8. The error catalogue

| code        | status | message                             |
| ----------- | ------ | ----------------------------------- |
| DUE_IN_PAST | 422    | The due date must be in the future. |
`,
    fixed: `## 5. Validation rules

| rule              | applies to | condition     | error       |
| ----------------- | ---------- | ------------- | ----------- |
| due in the future | Loan.due   | value > today | DUE_IN_PAST |

## 8. The error catalogue

| code        | status | message                             |
| ----------- | ------ | ----------------------------------- |
| DUE_IN_PAST | 422    | The due date must be in the future. |
`,
  },
  'unused-constant': {
    about: `Nothing in the spec refers to it: not a range, length, default, limit, guard, rule or message.
Use it, or remove it. Runtime settings never draw this warning.`,
    bad: `## 9. Business constants and limits

| name      | value | meaning                         |
| --------- | ----- | ------------------------------- |
| MAX_LOANS | 5     | books a member may hold at once |
`,
    fixed: `## 5. Validation rules

| rule       | applies to | condition                                        | error      |
| ---------- | ---------- | ------------------------------------------------ | ---------- |
| loan limit | Loan       | at most MAX_LOANS Loan in state out per borrower | LOAN_LIMIT |

## 8. The error catalogue

| code       | status | message                                              |
| ---------- | ------ | ---------------------------------------------------- |
| LOAN_LIMIT | 409    | A member may hold at most {MAX_LOANS} books at once. |

## 9. Business constants and limits

| name      | value | meaning                         |
| --------- | ----- | ------------------------------- |
| MAX_LOANS | 5     | books a member may hold at once |
`,
  },
};
