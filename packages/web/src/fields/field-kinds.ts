import type { FieldKind, FieldType, FieldTypeOf } from '@ninepoint/spec';

/**
 * How the web app lays out each field type, in one table; the facts it shares with the server (the
 * list API's filter, what `q` searches, INVALID_TYPE's words) are the spec's `FIELD_KINDS`. The
 * components that draw a kind (`FieldInput`, `FieldValue`, a list's `Cell`, `formatValue`,
 * `form-values`) switch on it exhaustively, so a new kind is a compile error there and here until
 * it has its row. See docs/architecture.md, "Adding a field type".
 */
/**
 * How a form holds a value while it is edited (`form-values.ts`): a checkbox's true or false, a
 * number or the text typed so far, a date-time in the browser's zone, text trimmed when sent, or a
 * value picked from a list or calendar, sent as it is.
 */
export type FormValue = 'checkbox' | 'number' | 'instant' | 'typed' | 'picked';

export interface WebKindFacts<K extends FieldKind> {
  form: FormValue;
  /** Its input is short (a number, a date, a short choice, a checkbox): two fit side by side on a form. */
  narrow(type: FieldTypeOf<K>): boolean;
  /** One line of text that may name a record (a title, a name, an address). */
  names: boolean;
  /** Short enough for a list's column and a card's lines; long text is shown only when chosen. */
  brief: boolean;
  /** Where it comes among a card's few fields, first lowest: amounts and dates before free text. */
  cardRank: number;
  /** A list's cells keep it on one line (amounts, yes/no read badly broken). */
  noWrap: boolean;
}

const always = () => true;
const never = () => false;

export const WEB_FIELD_KINDS: { readonly [K in FieldKind]: WebKindFacts<K> } = {
  decimal: { form: 'number', narrow: always, names: false, brief: true, cardRank: 0, noWrap: true },
  integer: { form: 'number', narrow: always, names: false, brief: true, cardRank: 1, noWrap: true },
  date: { form: 'picked', narrow: always, names: false, brief: true, cardRank: 2, noWrap: false },
  datetime: { form: 'instant', narrow: always, names: false, brief: true, cardRank: 3, noWrap: false },
  choice: {
    form: 'picked',
    narrow: (type) => type.values.every((v) => v.length <= 24),
    names: false,
    brief: true,
    cardRank: 4,
    noWrap: false,
  },
  reference: { form: 'picked', narrow: never, names: false, brief: true, cardRank: 5, noWrap: false },
  boolean: { form: 'checkbox', narrow: always, names: false, brief: true, cardRank: 6, noWrap: true },
  text: { form: 'typed', narrow: never, names: true, brief: true, cardRank: 7, noWrap: false },
  email: { form: 'typed', narrow: never, names: true, brief: true, cardRank: 8, noWrap: false },
  url: { form: 'typed', narrow: never, names: false, brief: true, cardRank: 9, noWrap: false },
  longText: { form: 'typed', narrow: never, names: false, brief: false, cardRank: 10, noWrap: false },
  // Files are uploaded on their own, not typed: the form holds the ids the record keeps.
  file: { form: 'picked', narrow: never, names: false, brief: true, cardRank: 11, noWrap: false },
};

/** The web app's facts for a type of any kind. */
export function webKind(type: FieldType | FieldKind): WebKindFacts<FieldKind> {
  // One cast for the table: TypeScript cannot see that a type's kind and its row agree.
  return WEB_FIELD_KINDS[typeof type === 'string' ? type : type.kind] as WebKindFacts<FieldKind>;
}

/** Whether a field's input is short enough that two fit side by side. */
export function isNarrowType(type: FieldType): boolean {
  return webKind(type).narrow(type as never);
}

/** Whether a field's input always holds a value (a checkbox unticked is false): never marked required. */
export function alwaysSet(type: FieldType): boolean {
  return webKind(type).form === 'checkbox';
}
