/**
 * Every diagnostic the checker can report, in one catalogue (like Fastify's `lib/errors.js`).
 *
 * The codes are public, stable API: `ninepoint check --json` prints them, the Studio keys quick
 * fixes on them, and `docs/spec-format.md` documents each one (a test keeps the two in step).
 */
export const DIAGNOSTIC_CODES = {
  // Document structure
  'missing-title': { severity: 'warning', summary: 'The spec has no `#` title heading.' },
  'missing-section': { severity: 'warning', summary: 'One of the nine points has no `##` section.' },
  'unknown-section': { severity: 'warning', summary: 'A `##` section matches none of the nine points.' },
  'duplicate-section': { severity: 'error', summary: 'Two `##` sections describe the same point.' },
  'section-number-mismatch': { severity: 'error', summary: "A section's number and title name different points." },
  'section-without-table': { severity: 'warning', summary: 'A point that needs a table has prose only.' },
  'spec-too-large': { severity: 'error', summary: 'The spec is larger than the checker accepts.' },
  // Tables
  'missing-column': { severity: 'error', summary: 'A table lacks a column the point needs.' },
  'unknown-column': { severity: 'warning', summary: "A table has a column the point doesn't use." },
  'extra-cell': {
    severity: 'error',
    summary: 'A table row has more cells than its header (often a bare `||` in an expression).',
  },
  'empty-cell': { severity: 'error', summary: 'A cell that must have a value is empty.' },
  'misplaced-table': { severity: 'error', summary: 'A table is not under the `###` heading it needs.' },
  // Names
  'invalid-name': { severity: 'error', summary: 'A name does not follow the naming rule for its kind.' },
  'duplicate-name': { severity: 'error', summary: 'Two things of the same kind share a name.' },
  'reserved-name': { severity: 'error', summary: 'A name is reserved by Ninepoint.' },
  // References
  'unknown-entity': { severity: 'error', summary: 'An entity is used but not defined in point 3.' },
  'unknown-field': { severity: 'error', summary: 'A field is used but not defined on its entity.' },
  'unknown-role': { severity: 'error', summary: 'A role is used but not defined in point 6.' },
  'unknown-state': { severity: 'error', summary: "A state is used but is not one of the entity's states." },
  'unknown-transition': { severity: 'error', summary: 'A transition is used but not defined in point 4.' },
  'unknown-constant': { severity: 'error', summary: 'A constant is used but not defined in point 9.' },
  'unknown-error-code': { severity: 'error', summary: 'An error code is used but not catalogued in point 8.' },
  // Fields
  // Automatic transitions (point 4)
  'invalid-duration': {
    severity: 'error',
    summary: 'A duration does not parse, or names a constant that is no duration.',
  },
  'timeless-automatic-transition': {
    severity: 'error',
    summary: 'The system takes a transition on a condition that never changes with time.',
  },
  'after-without-system': {
    severity: 'error',
    summary: 'A transition waits `after` a time, but `system` does not take it.',
  },
  'after-state-not-from': { severity: 'error', summary: 'A transition waits in a state it does not leave.' },
  'automatic-creating-transition': { severity: 'error', summary: 'The system is named to take a creating transition.' },
  'unknown-time-zone': { severity: 'error', summary: '`TIME_ZONE` is not an IANA time zone name.' },
  'unknown-type': { severity: 'error', summary: 'A field type is not one Ninepoint knows.' },
  'invalid-field-rule': { severity: 'error', summary: "A field's rule is not understood or does not fit its type." },
  'invalid-default': { severity: 'error', summary: "A default value does not fit the field's type or rules." },
  'invalid-range': { severity: 'error', summary: 'A range or length has its lower bound above its upper bound.' },
  'invalid-pattern': { severity: 'error', summary: 'A pattern is not a valid regular expression.' },
  'invalid-label': {
    severity: 'warning',
    summary: "A field's label is too long, or another field of the entity has the same one.",
  },
  // States
  'no-initial-state': { severity: 'error', summary: 'A state machine has no transition from `(new)`.' },
  'duplicate-initial-state': {
    severity: 'error',
    summary: 'A state machine has more than one transition from `(new)`.',
  },
  'unreachable-state': { severity: 'error', summary: 'A state cannot be reached from the initial state.' },
  'guard-field-never-set': {
    severity: 'warning',
    summary: 'A guard needs a field that nothing ever sets, so it can never hold.',
  },
  // Expressions and rules
  'expression-syntax': { severity: 'error', summary: 'An expression is not valid CEL.' },
  'expression-type': { severity: 'error', summary: 'An expression does not type-check, or is not a condition.' },
  'invalid-limit': { severity: 'error', summary: 'A cross-record limit does not follow its grammar.' },
  'invalid-target': { severity: 'error', summary: "A rule's `applies to` cell is not understood." },
  // Screens
  'invalid-screen': {
    severity: 'error',
    summary: 'A screen kind is not home, list, detail, form, board or dashboard.',
  },
  'invalid-dashboard': {
    severity: 'error',
    summary: "A dashboard's figures are not understood, or count or sum a field they cannot.",
  },
  'invalid-route': { severity: 'error', summary: 'A route is malformed or does not fit its screen kind.' },
  'invalid-filter': { severity: 'error', summary: "A screen's `where` filter is not understood." },
  'invalid-count': {
    severity: 'error',
    summary: 'A count in an expression (`count(Review where talk = this)`) is not understood.',
  },
  'invalid-reference-path': {
    severity: 'error',
    summary: 'A chain of fields (`doctor.account`) does not go through references.',
  },
  // Permissions
  'invalid-permission': { severity: 'error', summary: 'A permission cell names an unknown operation.' },
  'invalid-joins': { severity: 'error', summary: "A role's `joins` cell does not say how people get the role." },
  'invalid-people': { severity: 'error', summary: "A role's `people` cell is not invite, invite (roles) or manage." },
  'entity-without-permissions': { severity: 'warning', summary: 'No role may do anything with an entity.' },
  'unsettable-field': {
    severity: 'error',
    summary: 'A role may create records but not set a required field that has no default.',
  },
  // Calls
  'invalid-call': { severity: 'error', summary: "A call's method, path or action is malformed." },
  'call-mismatch': { severity: 'error', summary: "A call's method or path does not fit the action it names." },
  'duplicate-call': { severity: 'error', summary: 'Two calls share a method and path.' },
  // Errors and constants
  'invalid-status': { severity: 'error', summary: 'An HTTP status is not a 4xx or 5xx code.' },
  'unknown-placeholder': { severity: 'warning', summary: 'A message placeholder names no constant or field.' },
  'invalid-constant': {
    severity: 'error',
    summary: 'A constant value cannot be read, or does not fit a runtime setting.',
  },
  'unused-error-code': { severity: 'warning', summary: 'A catalogued error code is never used.' },
  'unused-constant': { severity: 'warning', summary: 'A constant is never used.' },
} as const satisfies Record<string, { severity: 'error' | 'warning'; summary: string }>;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;
