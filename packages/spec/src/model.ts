/**
 * The checked model of a nine-point spec: plain, JSON-serialisable data.
 *
 * References between parts are by name (an entity's `name`, a role's `name`), never by object
 * pointer, so the model can be sent to the browser as JSON (`GET /api/spec`) and compared across
 * versions (migrations). Every node keeps the source span it was read from.
 */

import type { ChoiceColour } from './choice-colours.ts';

/** A 1-based source span. `offset` is the 0-based character offset of the start. */
export interface Span {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  offset: number;
  /**
   * Where the span's text as the checker reads it is shorter than the source: the indexes in that
   * text of each `|` a table cell writes `\|`. `subSpan` maps through them. Absent when none.
   */
  escapes?: readonly number[];
}

/** The nine points, in their order in a spec. */
export const POINTS = [
  'product',
  'screens',
  'entities',
  'states',
  'rules',
  'roles',
  'calls',
  'errors',
  'constants',
] as const;

export type PointKey = (typeof POINTS)[number];

/** One of the nine `##` sections as it appeared (or did not) in the source. */
export interface Point {
  key: PointKey;
  /** 1–9. */
  number: number;
  /** Canonical title, e.g. "Entities and their fields". */
  title: string;
  /** False when the section is missing, empty, or says the point "is not shown". */
  shown: boolean;
  /** The heading's span, when the section is present. */
  span: Span | null;
  /** Markdown prose of the section outside its tables, kept as documentation. */
  prose: string;
}

export interface Product {
  /** From the title heading, without a leading "Specification:". */
  name: string;
  /** The first paragraph of point 1, or "" when not shown. */
  summary: string;
  /** Who the product is for: a "For whom"/"Audience" sub-section, else the rest of point 1's prose. */
  audience: string;
  /** All of point 1's prose as Markdown. */
  description: string;
  span: Span | null;
}

// ---------------------------------------------------------------------------------------------
// 2. Screens and routes

export type ScreenKind = 'home' | 'list' | 'detail' | 'form' | 'board' | 'dashboard';

/**
 * One figure of a dashboard (`Ticket: count by state, sum of time_spent by category`): how many
 * records of an entity there are, or the sum of one of their number fields, in all or per value
 * of a field. Only records the user may read are counted.
 */
export interface DashboardTile {
  entity: string;
  measure: 'count' | 'sum';
  /** The summed field (integer or decimal); null for a count. */
  field: string | null;
  /** Per value of `state`, a choice field or a boolean field; null for one figure. */
  by: string | null;
}

/** `where field = value` on a list or board screen. */
export interface ScreenFilter {
  field: string;
  /** `me` means the signed-in user; otherwise a literal compared with the field's value. */
  value: { me: true } | { literal: string | number | boolean };
}

export interface Screen {
  route: string;
  /** `:name` parameters of the route, in order. */
  params: string[];
  kind: ScreenKind;
  /** The entity shown, or null for `home` and `dashboard` (whose tiles name theirs). */
  entity: string | null;
  filters: ScreenFilter[];
  /** A dashboard's figures, in order; absent for other kinds. */
  tiles?: DashboardTile[];
  /** Roles that may open the screen; `anyone` includes signed-out visitors; empty means every signed-in user. */
  who: string[];
  doc: string;
  span: Span;
}

// ---------------------------------------------------------------------------------------------
// 3. Entities and their fields

export type FieldType =
  | { kind: 'text' }
  | { kind: 'longText' }
  | { kind: 'integer' }
  | { kind: 'decimal'; scale: number | null }
  | { kind: 'boolean' }
  | { kind: 'date' }
  | { kind: 'datetime' }
  | { kind: 'email' }
  | { kind: 'url' }
  /**
   * One of the listed values, calm to urgent when they name a scale. `colours` holds the colours the
   * spec declares (`choice of low (grey), high (red)`), by value; absent when it declares none.
   */
  | { kind: 'choice'; values: string[]; colours?: Readonly<Record<string, ChoiceColour>> }
  /** A reference to another entity's record, or to a signed-in `User`. */
  | { kind: 'reference'; entity: string }
  /**
   * Uploaded files (`file`, `files`) or raster images (`image`, `images`), with the limits of the
   * rules column (`at most 10 MB`, `pdf, png`, `at most 5 files`). See `file-formats.ts`.
   */
  | ({ kind: 'file' } & FileLimits);

/** What a file field holds and accepts. */
export interface FileLimits {
  /** Images only (`image`, `images`): raster images a browser shows, with thumbnails. */
  image: boolean;
  /** The most files the field holds: 1 for `file` and `image`. */
  maxFiles: number;
  /** The largest file, in bytes (`at most 10 MB`; `FILE_DEFAULT_MAX_BYTES` when the spec says none). */
  maxBytes: number;
  /** The kinds accepted, as `file-formats.ts` names them (`pdf`, `png`, `jpeg`); empty for any file. */
  kinds: readonly string[];
  /**
   * `keeps location` in the rules: photos keep their EXIF metadata (the place they were taken) as
   * uploaded. Absent: the server strips it from every raster image it stores.
   */
  keepsLocation?: true;
}

export type FieldKind = FieldType['kind'];

/** The field type of one kind (`FieldTypeOfKind<'file'>` has its limits). */
export type FieldTypeOfKind<K extends FieldKind> = Extract<FieldType, { kind: K }>;

/** A number written in the spec, either literally or as a constant's name (resolved). */
export interface Bound {
  value: number;
  constant: string | null;
}

export type DefaultValue =
  | { literal: string | number | boolean }
  /** Filled in when a record is created: the current time, today's date, or the acting user. */
  | { dynamic: 'now' | 'today' | 'me' };

export interface Field {
  name: string;
  type: FieldType;
  required: boolean;
  unique: boolean;
  default: DefaultValue | null;
  /** Numeric range for integer and decimal fields. */
  min: Bound | null;
  max: Bound | null;
  /** Length in characters for text-like fields. */
  minLength: Bound | null;
  maxLength: Bound | null;
  /**
   * A regular expression in RE2 syntax (JavaScript's, without lookaround or back-references, so
   * matching is linear-time) the value must match; anchor it with ^…$ to match the whole value.
   */
  pattern: string | null;
  /**
   * The field's rules say `thread`: the entity's records are a conversation on the record this
   * reference names (`threadOf`). Absent otherwise.
   */
  thread?: true;
  /** The words screens show for the field, from point 3's `label` column; absent when it gives none. */
  label?: string;
  doc: string;
  span: Span;
}

export interface Entity {
  name: string;
  fields: Field[];
  doc: string;
  span: Span;
  /**
   * Fields whose type could not be read (reported once, `unknown-type` or `unknown-entity`): not in
   * `fields`, but still names of the entity for the checks that follow, which say nothing more of
   * them (a guard or call naming one is not also an unknown field). Only a model with errors has it.
   */
  untyped?: string[];
}

/** Fields every record has in addition to its declared fields. */
export const SYSTEM_FIELDS = ['id', 'created_at', 'updated_at', 'created_by', 'state'] as const;

// ---------------------------------------------------------------------------------------------
// 4. States and transitions

export interface State {
  name: string;
  doc: string;
  span: Span;
}

export interface Transition {
  /** As written, e.g. "mark overdue". */
  name: string;
  /** URL form, e.g. "mark-overdue". */
  slug: string;
  /** States the transition leaves; empty for the creating transition (`(new)`). */
  from: string[];
  to: string;
  /** True for the transition from `(new)`: it runs when a record is created. */
  creates: boolean;
  /** Roles that may take it; empty means every role that may update the record. */
  who: string[];
  /** CEL guard that must hold, or null. */
  guard: string | null;
  /**
   * The catalogue code a failed guard answers with (its status and message), or null for
   * TRANSITION_NOT_ALLOWED. A wrong from-state answers TRANSITION_NOT_ALLOWED either way.
   */
  error: string | null;
  /**
   * The fields it sets as it is taken (point 4's `sets` column): evaluated after the guard, on the
   * record with the call's payload applied, before the rules run on the result. Absent when none.
   */
  sets?: Assignment[];
  doc: string;
  span: Span;
  guardSpan: Span | null;
  /**
   * Set when the system takes the transition by itself (`system` in its who column): the app
   * takes it as soon as it is due. `who` then lists only the roles that may also take it by hand.
   */
  automatic?: AutomaticTiming;
}

/** When the system takes an automatic transition. */
export type AutomaticTiming =
  /**
   * `after 4 hours in new` or `after SLA_RESPONSE`: once the record has been this long in its
   * state. `state` narrows it to one of the from-states (null: any of them); `constant` names the
   * point-9 duration it was written with.
   */
  | { kind: 'after'; seconds: number; constant: string | null; state: string | null }
  /** The when column's condition mentions `now` or `today`: taken once it holds. */
  | { kind: 'condition' };

/** One `field = expression` of a transition's `sets` cell (`decided_on = today`). */
export interface Assignment {
  field: string;
  /** The CEL expression whose value the field takes. */
  source: string;
  /** The whole `field = expression`. */
  span: Span;
  fieldSpan: Span;
  sourceSpan: Span;
}

export interface StateMachine {
  entity: string;
  /** In declaration order; a board screen shows them as columns in this order. */
  states: State[];
  /** The state a new record enters. */
  initial: string;
  transitions: Transition[];
  doc: string;
  span: Span;
}

// ---------------------------------------------------------------------------------------------
// 5. Validation rules

export interface RuleTarget {
  entity: string;
  /** Set when the rule applies to one field: its failure is reported at that field. */
  field: string | null;
  /** Set when the rule applies only when that transition is taken. */
  transition: string | null;
}

export type RuleCondition =
  /** A CEL expression over the record, `user`, `now`, `today` and the constants that must hold. */
  | { kind: 'expression'; source: string }
  /**
   * "at most MAX Entity in state s1, s2 per f1, f2 per day of d": a count over the other records
   * sharing every `per` field and (with a period) whose `d` falls in the same UTC calendar period.
   */
  | { kind: 'limit'; max: Bound; entity: string; states: string[]; per: string[]; period: LimitPeriod | null };

/** The calendar periods a limit may count per, in UTC; a week starts on Monday (ISO 8601). */
export const PERIOD_UNITS = ['day', 'week', 'month', 'year'] as const;
export type PeriodUnit = (typeof PERIOD_UNITS)[number];

/** A limit's period: records whose date or date-time `field` falls in the same `unit`. */
export interface LimitPeriod {
  unit: PeriodUnit;
  field: string;
}

export interface Rule {
  name: string;
  appliesTo: RuleTarget;
  condition: RuleCondition;
  /** Catalogue code reported when the condition does not hold. */
  error: string;
  doc: string;
  span: Span;
  conditionSpan: Span;
  /**
   * What the author means the rule to tell those who trigger it though their roles may not read it
   * (the `reveals` column): `all`, or paths as the condition reads them (`project.budget`) and
   * `count` (a limit's count of records they may not read). Absent or empty: nothing, so the
   * checker warns of each (`reveals-hidden`).
   */
  reveals?: readonly string[] | 'all';
}

// ---------------------------------------------------------------------------------------------
// 6. Roles and permissions

/** Signed-out visitors: a role row or `who` entry with this name grants access without sign-in. */
export const ANYONE = 'anyone';

/**
 * Whether point 6 declares any access: a role, or a grant (a table whose only row is `anyone`
 * declares no role but grants visitors). When it does not, the runtime's default applies: every
 * signed-in user may do everything, visitors nothing.
 */
export function rolesDeclared(model: Pick<Model, 'roles' | 'permissions'>): boolean {
  return model.roles.length > 0 || model.permissions.length > 0;
}

export interface Role {
  name: string;
  doc: string;
  span: Span;
  /** How people come to hold the role (the `joins` column). */
  joins: Joining;
  /** What the role may do with people's accounts (the `people` column). */
  people: PeopleGrant;
  /**
   * Whether holders of the role must sign in with a second factor (the `sign in` column:
   * `requires two-factor`): until they have set one up, they may do nothing else.
   */
  twoFactor: boolean;
}

/**
 * How people come to hold a role: `sign-up`, anyone may create an account with it themselves
 * after verifying their email (only at `domains`, lowercase, when there are any); `invitation`,
 * only an invitation or `ninepoint users add` gives it.
 */
export type Joining = { kind: 'invitation' } | { kind: 'sign-up'; domains: string[] };

/**
 * What a role may do with people's accounts: invite people into some roles (`'any'`: every role),
 * and `manage` them (list everyone, change roles, deactivate, read account history).
 */
export interface PeopleGrant {
  invite: string[] | 'any';
  manage: boolean;
}

/** `all`: every record; `own`: records the user created or that reference the user; `none`. */
export type Access = 'none' | 'own' | 'all';

export interface Permission {
  role: string;
  entity: string;
  create: boolean;
  read: Access;
  update: Access;
  delete: Access;
  /**
   * The fields the role may set when it creates a record (`create (title, notes)`), or null for
   * all of them. The others take their defaults.
   */
  createFields: string[] | null;
  /** The fields the role may change when it updates a record (`update own (notes)`), or null for all. */
  updateFields: string[] | null;
  /**
   * For `own` access, the chains of fields that lead from a record to its owner, per operation
   * (`read own via doctor.account`: records whose doctor's account is the user); null for the
   * default owners, `created_by` and every field referring to `User`.
   */
  via: Record<RecordOperation, string[][] | null>;
  /** The states a record must be in for the grant to apply (`update own while draft`), per operation; null for any. */
  inStates: Record<RecordOperation, string[] | null>;
  /**
   * The fields the role sees of the records it may read (`read (title)`, `read except (speaker)`),
   * in the entity's order for `except`, or null for all of them (and when it reads nothing). The
   * system fields are always seen, but `created_by` when the role's `read except (…)` names it.
   */
  readFields: string[] | null;
  /**
   * Whether the role does not learn who created a record or changed it (`read except
   * (created_by)`): `created_by` and the `by` of history entries are hidden from it like a hidden
   * field (blind review). Absent: false.
   */
  hidesAuthor?: boolean;
  span: Span;
}

/** The operations of point 6 on existing records. */
export type RecordOperation = 'read' | 'update' | 'delete';

// ---------------------------------------------------------------------------------------------
// 7. The calls it makes

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type CallAction =
  | { kind: 'list' | 'get' | 'create' | 'update' | 'delete' | 'history'; entity: string }
  | { kind: 'transition'; entity: string; transition: string }
  /** A custom call answered by a TypeScript module beside the spec (`code pricing.ts`). */
  | { kind: 'code'; entity: string; code: CodeRef };

/**
 * A TypeScript module beside the spec and the export it names: `pricing.ts` (its default export)
 * or `price from pricing.ts`. The file is relative to the spec's folder and never outside it.
 */
export interface CodeRef {
  /** As written, `/`-separated, normalised (`./a/../b.ts` is `b.ts`). */
  file: string;
  /** The export's name; `default` for the default export. */
  export: string;
  span: Span;
}

export interface Call {
  method: HttpMethod;
  /** Path shape with `:params`, e.g. `/api/loans/:id/return`. */
  path: string;
  params: string[];
  action: CallAction;
  /** The body it accepts: an entity's fields, optionally limited to some of them. */
  payload: { entity: string; fields: string[] | null } | null;
  /**
   * What a custom call (`code …`) answers: an entity's record, or some of its fields; null for
   * any JSON value. Absent on the other calls, whose answers follow from their action.
   */
  answer?: { entity: string; fields: string[] | null } | null;
  doc: string;
  /** True when derived because point 7 is not shown. */
  derived: boolean;
  span: Span | null;
}

/** A change to a record that sets off notifications and calls to other systems. */
export type OutgoingEvent =
  | { kind: 'create' | 'update' | 'delete'; entity: string }
  | { kind: 'transition'; entity: string; transition: string }
  /** A job of point 7's "Schedules" falling due (`schedule nightly export`): calls only. */
  | { kind: 'schedule'; job: string };

/** Point 7's "Schedules": recurring work, a named job that sets off its calls when due. */
export interface Schedule {
  name: string;
  /** As written: `every day at 07:00` or `0 7 * * *`. */
  every: string;
  /** The five-field cron pattern it stands for, read in the product's time zone. */
  cron: string;
  span: Span;
}

/**
 * Point 7's "Code": a TypeScript module run on an event. `before` runs before a write is made and
 * may refuse it with a catalogue error; `after` runs once the write has committed (side effects);
 * `schedule` runs when a job of point 7's Schedules falls due.
 */
export interface Hook {
  moment: 'before' | 'after' | 'schedule';
  event: OutgoingEvent;
  code: CodeRef;
  span: Span;
}

/** Where a value the runtime needs comes from: a point-9 constant, or the server's environment. */
export type ValueSource = { kind: 'constant'; name: string } | { kind: 'env'; name: string };

/** Who a notification goes to. */
export type Recipient =
  /** The user a field names, directly (`assignee`) or through references (`doctor.account`). */
  | { kind: 'field'; path: string[] }
  /** Every active user holding the role. */
  | { kind: 'role'; role: string }
  /** One email address, from a text constant or an environment variable: no user, no in-app list. */
  | { kind: 'address'; source: ValueSource };

/** Point 7's "Notifications": who is told what, and when. */
export interface Notification {
  event: OutgoingEvent;
  to: Recipient[];
  /** With `{field}` and `{CONSTANT}` placeholders, filled as refusal messages are. */
  subject: string;
  text: string;
  span: Span;
}

/** Point 7's "Calls to other systems": a signed HTTP call (a webhook) on an event. */
export interface Webhook {
  event: OutgoingEvent;
  method: 'POST' | 'PUT' | 'PATCH';
  url: ValueSource;
  /** The record's fields the body carries; null for the whole record. */
  fields: string[] | null;
  /** The environment variable holding the `whsec_` signing secret: never the secret itself. */
  secretEnv: string;
  span: Span;
}

// ---------------------------------------------------------------------------------------------
// 8. The error catalogue

export interface ErrorCode {
  code: string;
  status: number;
  /** With `{placeholders}` naming constants or fields. */
  message: string;
  /** True for a runtime built-in code (not found, conflict, …) that the spec did not override. */
  builtin: boolean;
  span: Span | null;
}

// ---------------------------------------------------------------------------------------------
// 9. Business constants and limits

/** A `date` (`2026-03-01`) and a `datetime` (`2026-03-01T09:00:00Z`) are CEL timestamps in expressions. */
export type ConstantType = 'integer' | 'decimal' | 'boolean' | 'text' | 'duration' | 'date' | 'datetime';

export interface Constant {
  name: string;
  type: ConstantType;
  /**
   * Durations are in seconds; a date is `YYYY-MM-DD` (midnight UTC in expressions); a date-time is
   * the instant in ISO 8601 UTC (`2026-03-01T08:00:00.000Z` for `2026-03-01T09:00:00+01:00`).
   */
  value: number | boolean | string;
  /** The value as written, e.g. "14 days". */
  raw: string;
  meaning: string;
  span: Span;
}

// ---------------------------------------------------------------------------------------------

/** The whole checked spec. Present even when there are errors: it holds what could be read. */
export interface Model {
  /** Model format version; bumped on incompatible changes. */
  version: 1;
  product: Product;
  points: Point[];
  screens: Screen[];
  entities: Entity[];
  machines: StateMachine[];
  rules: Rule[];
  roles: Role[];
  permissions: Permission[];
  /** The calls as declared in point 7 (empty when not shown; see `effectiveCalls`). */
  calls: Call[];
  /** Point 7's notifications and calls to other systems (empty when none are declared). */
  notifications: Notification[];
  webhooks: Webhook[];
  /** Point 7's recurring jobs (empty when none are declared). */
  schedules: Schedule[];
  /** Point 7's TypeScript hooks and scheduled modules (empty when none are declared). */
  hooks: Hook[];
  /** The catalogue as declared in point 8 (see `errorCatalogue` for built-ins merged in). */
  errors: ErrorCode[];
  constants: Constant[];
  /**
   * The source lines the runtime points at (a refusal's rule, guard, limit or permission; an
   * operation's declaration; a transition), by line number, as written (trimmed): see
   * `specLinesOf` and `specLine`. Absent in a model not made by `checkSpec`.
   */
  lines?: Readonly<Record<string, string>>;
}
