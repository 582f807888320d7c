/**
 * The point whose rules a diagnostic enforces (a name used but not defined is the point that
 * defines such names: an unknown entity is point 3's), or `document` for the document's
 * structure, tables, names and expressions, wherever they appear.
 */
export type DiagnosticPoint = 'document' | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;

/**
 * Every diagnostic the checker can report, in one catalogue (like Fastify's `lib/errors.js`).
 *
 * The codes are public, stable API: `ninepoint check --json` prints them, the Studio keys quick
 * fixes on them, and `docs/diagnostics.md` documents each one: it is generated from this catalogue
 * and `diagnostic-examples.ts` (`npm run docs:diagnostics`; a test keeps them in step).
 */
export const DIAGNOSTIC_CODES = {
  // The document: its structure, tables, names and expressions, wherever they appear
  'missing-title': { point: 'document', severity: 'warning', summary: 'The spec has no `#` title heading.' },
  'missing-section': { point: 'document', severity: 'warning', summary: 'One of the nine points has no `##` section.' },
  'unknown-section': {
    point: 'document',
    severity: 'warning',
    summary: 'A `##` section matches none of the nine points.',
  },
  'duplicate-section': { point: 'document', severity: 'error', summary: 'Two `##` sections describe the same point.' },
  'section-number-mismatch': {
    point: 'document',
    severity: 'error',
    summary: "A section's number and title name different points.",
  },
  'section-without-table': {
    point: 'document',
    severity: 'warning',
    summary: 'A point that needs a table has prose only.',
  },
  'spec-too-large': { point: 'document', severity: 'error', summary: 'The spec is larger than the checker accepts.' },
  'missing-column': { point: 'document', severity: 'error', summary: 'A table lacks a column the point needs.' },
  'unknown-column': { point: 'document', severity: 'warning', summary: "A table has a column the point doesn't use." },
  'extra-cell': {
    point: 'document',
    severity: 'error',
    summary: 'A table row has more cells than its header (often a bare `||` in an expression).',
  },
  'empty-cell': { point: 'document', severity: 'error', summary: 'A cell that must have a value is empty.' },
  'misplaced-table': {
    point: 'document',
    severity: 'error',
    summary: 'A table is not under the `###` heading it needs.',
  },
  'invalid-name': {
    point: 'document',
    severity: 'error',
    summary: 'A name does not follow the naming rule for its kind.',
  },
  'duplicate-name': { point: 'document', severity: 'error', summary: 'Two things of the same kind share a name.' },
  'expression-syntax': { point: 'document', severity: 'error', summary: 'An expression is not valid CEL.' },
  'expression-type': {
    point: 'document',
    severity: 'error',
    summary: 'An expression does not type-check, or is not a condition.',
  },
  'invalid-count': {
    point: 'document',
    severity: 'error',
    summary: 'A count in an expression (`count(Review where talk = this)`) is not understood.',
  },
  'invalid-reference-path': {
    point: 'document',
    severity: 'error',
    summary: 'A chain of fields (`doctor.account`) does not go through references.',
  },
  // Point 2: screens and routes
  'invalid-screen': {
    point: 2,
    severity: 'error',
    summary: 'A screen kind is not home, list, detail, form, board or dashboard.',
  },
  'invalid-dashboard': {
    point: 2,
    severity: 'error',
    summary: "A dashboard's figures are not understood, or count or sum a field they cannot.",
  },
  'invalid-route': { point: 2, severity: 'error', summary: 'A route is malformed or does not fit its screen kind.' },
  'invalid-filter': { point: 2, severity: 'error', summary: "A screen's `where` filter is not understood." },
  // Point 3: entities and their fields (an entity or field used but not defined is point 3's)
  'reserved-name': { point: 3, severity: 'error', summary: 'A name is reserved by Ninepoint.' },
  'unknown-entity': { point: 3, severity: 'error', summary: 'An entity is used but not defined in point 3.' },
  'unknown-field': { point: 3, severity: 'error', summary: 'A field is used but not defined on its entity.' },
  'unknown-type': { point: 3, severity: 'error', summary: 'A field type is not one Ninepoint knows.' },
  'unknown-colour': {
    point: 3,
    severity: 'warning',
    summary: 'A choice value declares a colour that is not in the palette.',
  },
  'invalid-field-rule': {
    point: 3,
    severity: 'error',
    summary: "A field's rule is not understood or does not fit its type.",
  },
  'invalid-thread': {
    point: 3,
    severity: 'error',
    summary: 'A field marked thread is not a reference to another entity, or an entity is a thread twice.',
  },
  'thread-without-text': {
    point: 3,
    severity: 'error',
    summary: 'An entity declared a thread has no text field to hold the messages.',
  },
  'invalid-default': {
    point: 3,
    severity: 'error',
    summary: "A default value does not fit the field's type or rules.",
  },
  'invalid-file-limit': {
    point: 3,
    severity: 'error',
    summary: "A file field's size, kinds or count is not one the runtime can enforce.",
  },
  'invalid-range': {
    point: 3,
    severity: 'error',
    summary: 'A range or length has its lower bound above its upper bound.',
  },
  'invalid-pattern': { point: 3, severity: 'error', summary: 'A pattern is not a valid regular expression.' },
  'invalid-label': {
    point: 3,
    severity: 'warning',
    summary: "A field's label is too long, or another field of the entity has the same one.",
  },
  // Point 4: states and transitions
  'unknown-state': { point: 4, severity: 'error', summary: "A state is used but is not one of the entity's states." },
  'unknown-transition': { point: 4, severity: 'error', summary: 'A transition is used but not defined in point 4.' },
  'no-initial-state': { point: 4, severity: 'error', summary: 'A state machine has no transition from `(new)`.' },
  'duplicate-initial-state': {
    point: 4,
    severity: 'error',
    summary: 'A state machine has more than one transition from `(new)`.',
  },
  'unreachable-state': { point: 4, severity: 'error', summary: 'A state cannot be reached from the initial state.' },
  'invalid-duration': {
    point: 4,
    severity: 'error',
    summary: 'A duration does not parse, or names a constant that is no duration.',
  },
  'timeless-automatic-transition': {
    point: 4,
    severity: 'error',
    summary: 'The system takes a transition on a condition that never changes with time.',
  },
  'after-without-system': {
    point: 4,
    severity: 'error',
    summary: 'A transition waits `after` a time, but `system` does not take it.',
  },
  'after-state-not-from': { point: 4, severity: 'error', summary: 'A transition waits in a state it does not leave.' },
  'automatic-creating-transition': {
    point: 4,
    severity: 'error',
    summary: 'The system is named to take a creating transition.',
  },
  'guard-field-never-set': {
    point: 4,
    severity: 'warning',
    summary: 'A guard needs a field that nothing ever sets, so it can never hold.',
  },
  'invalid-assignment': {
    point: 4,
    severity: 'error',
    summary:
      "A transition's `sets` entry is not `field = expression`, repeats a field, or is on the creating transition.",
  },
  'system-field-assignment': {
    point: 4,
    severity: 'error',
    summary: 'A transition sets a system field (`id`, `state`, `created_by`, `created_at`, `updated_at`).',
  },
  'assignment-type': {
    point: 4,
    severity: 'error',
    summary: 'A transition sets a field to a value its type cannot hold.',
  },
  'set-field-in-payload': {
    point: 4,
    severity: 'warning',
    summary: "A transition's call carries a field the transition sets; the value sent is replaced.",
  },
  // Point 5: validation rules
  'invalid-limit': { point: 5, severity: 'error', summary: 'A cross-record limit does not follow its grammar.' },
  'invalid-target': { point: 5, severity: 'error', summary: "A rule's `applies to` cell is not understood." },
  'reveals-hidden': {
    point: 5,
    severity: 'warning',
    summary: 'A rule, guard or limit a role can trigger reads a field, or counts records, the role may not read.',
  },
  // Point 6: roles and permissions
  'unknown-role': { point: 6, severity: 'error', summary: 'A role is used but not defined in point 6.' },
  'invalid-permission': { point: 6, severity: 'error', summary: 'A permission cell names an unknown operation.' },
  'invalid-joins': {
    point: 6,
    severity: 'error',
    summary: "A role's `joins` cell does not say how people get the role.",
  },
  'invalid-people': {
    point: 6,
    severity: 'error',
    summary: "A role's `people` cell is not invite, invite (roles) or manage.",
  },
  'invalid-sign-in': {
    point: 6,
    severity: 'error',
    summary: "A role's `sign in` cell is not `requires two-factor` or `-`, or is on the anyone row.",
  },
  'entity-without-permissions': { point: 6, severity: 'warning', summary: 'No role may do anything with an entity.' },
  'unsettable-field': {
    point: 6,
    severity: 'error',
    summary: 'A role may create records but not set a required field that has no default.',
  },
  'own-without-owner': {
    point: 6,
    severity: 'warning',
    summary: "A role's own records are none: the entity names no user, and the role does not create them.",
  },
  'author-reveals-hidden-field': {
    point: 6,
    severity: 'warning',
    summary: 'A role does not see a User field, but sees `created_by`, which names the same person.',
  },
  // Point 7: the calls it makes
  'invalid-call': { point: 7, severity: 'error', summary: "A call's method, path or action is malformed." },
  'call-mismatch': {
    point: 7,
    severity: 'error',
    summary: "A call's method or path does not fit the action it names.",
  },
  'duplicate-call': { point: 7, severity: 'error', summary: 'Two calls share a method and path.' },
  'invalid-event': {
    point: 7,
    severity: 'error',
    summary: 'A notification or call to another system is set off by something that is not an event.',
  },
  'invalid-recipient': {
    point: 7,
    severity: 'error',
    summary: 'A notification goes to a field that is not a User, or a constant that is not an email address.',
  },
  'invalid-webhook': {
    point: 7,
    severity: 'error',
    summary: "A call to another system's method, URL or body is not understood.",
  },
  'invalid-schedule': {
    point: 7,
    severity: 'error',
    summary: 'A scheduled job does not parse, is declared twice, or a call names a job no schedule declares.',
  },
  'invalid-module': {
    point: 7,
    severity: 'error',
    summary: "A custom call or hook names a module that is not a TypeScript file inside the spec's folder.",
  },
  'missing-module': {
    point: 7,
    severity: 'error',
    summary: 'A module the spec names is not there, or does not load (`ninepoint check` looks beside the spec).',
  },
  'missing-export': {
    point: 7,
    severity: 'error',
    summary: 'A module does not export the function the spec names, or exports one made for another use.',
  },
  'secret-in-spec': {
    point: 7,
    severity: 'error',
    summary: 'A call to another system is signed with a secret written in the spec, not read from the environment.',
  },
  // Point 8: the error catalogue
  'unknown-error-code': {
    point: 8,
    severity: 'error',
    summary: 'An error code is used but not catalogued in point 8.',
  },
  'invalid-status': { point: 8, severity: 'error', summary: 'An HTTP status is not a 4xx or 5xx code.' },
  'unknown-placeholder': {
    point: 8,
    severity: 'warning',
    summary: 'A message placeholder names no constant or field.',
  },
  'unused-error-code': { point: 8, severity: 'warning', summary: 'A catalogued error code is never used.' },
  // Point 9: business constants and limits
  'unknown-constant': { point: 9, severity: 'error', summary: 'A constant is used but not defined in point 9.' },
  'unknown-time-zone': { point: 9, severity: 'error', summary: '`TIME_ZONE` is not an IANA time zone name.' },
  'invalid-constant': {
    point: 9,
    severity: 'error',
    summary: 'A constant value cannot be read, or does not fit a runtime setting.',
  },
  'unused-constant': { point: 9, severity: 'warning', summary: 'A constant is never used.' },
} as const satisfies Record<string, { point: DiagnosticPoint; severity: 'error' | 'warning'; summary: string }>;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;
