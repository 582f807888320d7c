import { type ASTNode, parse } from '@marcbachmann/cel-js';
import { familyOf, isMoment } from './field-kinds.ts';
import { type CountTerm, findCounts, type PresenceTerm } from './filled-terms.ts';
import type { Constant, Entity, FieldType, Model } from './model.ts';
import { USER_ENTITY } from './names.ts';

/**
 * A guard's CEL condition in words, for the refusal a user reads when it does not hold
 * (`book.copies > 0` → "the book's copies is more than 0"): fields by name without underscores,
 * constants by their value as written (a date constant by its date, also inside `timestamp(…)`),
 * text quoted (a comparison with "" as "is empty"), `user` as "you", and the shapes guards are usually written
 * in (`now - created_at > SLA`, `size(note) >= N`, `"agent" in assignee.roles`) as sentences. Boolean
 * constants are folded, so `approver.id == user.id && (ALLOW_SELF_APPROVAL || …)` reads without
 * the half that cannot matter. A shape it has no words for is quoted as written.
 */
export function conditionWords(source: string, entity: Entity, model: Pick<Model, 'entities' | 'constants'>): string {
  let ast: ASTNode;
  const counts = findCounts(source);
  try {
    ast = parse(counts.rewritten).ast;
  } catch {
    return `${source.trim()} holds`;
  }
  const words = new Words(counts.rewritten, entity, model, counts.terms, counts.present);
  return words.clause(words.fold(ast));
}

type Kind = 'time' | 'duration' | 'number' | 'text' | 'bool' | 'user' | 'record' | 'list' | 'other';

/** A value in words, with what it is (to pick "before" for times and "more than" for numbers). */
interface Term {
  words: string;
  kind: Kind;
  /** For a reference (or the acting user): its entity, to name the fields reached through it. */
  entity?: Entity | undefined;
  /** True for the acting user ("you"): "you are", "your roles". */
  you?: boolean;
}

const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);
const FLIPPED: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==', '!=': '!=' };
const NEGATED: Record<string, string> = { '<': '>=', '<=': '>', '>': '<=', '>=': '<', '==': '!=', '!=': '==' };
const AMOUNT: Record<string, string> = {
  '>': 'more than',
  '>=': 'at least',
  '<': 'less than',
  '<=': 'at most',
  '==': 'exactly',
};
const NUMBER: Record<string, string> = {
  '>': 'is more than',
  '>=': 'is at least',
  '<': 'is less than',
  '<=': 'is at most',
  '==': 'is',
  '!=': 'is not',
};
const TIME: Record<string, string> = {
  '>': 'is after',
  '>=': 'is on or after',
  '<': 'is before',
  '<=': 'is on or before',
  '==': 'is',
  '!=': 'is not',
};
const UNITS: Record<string, [string, string]> = {
  h: ['hour', 'hours'],
  m: ['minute', 'minutes'],
  s: ['second', 'seconds'],
  ms: ['millisecond', 'milliseconds'],
};

class Words {
  readonly #source: string;
  readonly #entity: Entity;
  readonly #entities: ReadonlyMap<string, Entity>;
  readonly #constants: ReadonlyMap<string, Constant>;
  readonly #counts: ReadonlyMap<string, CountTerm>;
  readonly #present: ReadonlyMap<string, PresenceTerm>;

  constructor(
    source: string,
    entity: Entity,
    model: Pick<Model, 'entities' | 'constants'>,
    counts: readonly CountTerm[] = [],
    present: readonly PresenceTerm[] = [],
  ) {
    this.#source = source;
    this.#entity = entity;
    this.#entities = new Map(model.entities.map((e) => [e.name, e]));
    this.#constants = new Map(model.constants.map((c) => [c.name, c]));
    this.#counts = new Map(counts.map((c) => [c.variable, c]));
    this.#present = new Map(present.map((p) => [p.variable, p]));
  }

  /** The node with boolean constants folded away: `false || x` is `x`, `true && x` is `x`. */
  fold(node: ASTNode): ASTNode {
    if (node.op !== '&&' && node.op !== '||') return node;
    const [left, right] = (node.args as [ASTNode, ASTNode]).map((n) => this.fold(n)) as [ASTNode, ASTNode];
    const neutral = node.op === '&&';
    for (const [side, other] of [
      [left, right],
      [right, left],
    ] as const) {
      const value = this.#boolConstant(side);
      if (value === undefined) continue;
      // `true && x` and `false || x` are x; `false && x` and `true || x` are the constant itself.
      return value === neutral ? other : side;
    }
    // A plain node: the parser's keep their source range in a getter, which a spread would lose.
    return { op: node.op, args: [left, right], range: node.range } as unknown as ASTNode;
  }

  /** A condition as a clause that reads after "only when". */
  clause(node: ASTNode): string {
    switch (node.op) {
      case '&&':
        return this.#joined(node, '&&', 'and');
      case '||':
        return this.#joined(node, '||', 'or');
      case '!_':
        return this.#negated(node.args as ASTNode);
      case '?:': {
        const [test, then, otherwise] = node.args as [ASTNode, ASTNode, ASTNode];
        return `${this.clause(then)} if ${this.clause(test)}, and otherwise when ${this.clause(otherwise)}`;
      }
      case 'in':
        return this.#membership(node.args as [ASTNode, ASTNode]) ?? this.#quoted(node);
      default:
        if (COMPARISONS.has(node.op)) {
          const [left, right] = node.args as [ASTNode, ASTNode];
          return this.#comparison(node.op, left, right) ?? this.#quoted(node);
        }
        return this.#truth(node, true);
    }
  }

  #joined(node: ASTNode, op: '&&' | '||', word: string): string {
    const parts: ASTNode[] = [];
    const collect = (n: ASTNode) => {
      if (n.op === op) for (const child of n.args as [ASTNode, ASTNode]) collect(child);
      else parts.push(n);
    };
    collect(node);
    const said = parts.map((p) => {
      const text = this.clause(p);
      if (p.op === '||' && op === '&&') return `either ${text}`;
      if (p.op === '&&' && op === '||') return `both ${text}`;
      return text;
    });
    if (said.length <= 2) return said.join(` ${word} `);
    return `${said.slice(0, -1).join(', ')} ${word} ${said.at(-1)}`;
  }

  #negated(node: ASTNode): string {
    if (COMPARISONS.has(node.op)) {
      const [left, right] = node.args as [ASTNode, ASTNode];
      const said = this.#comparison(NEGATED[node.op] ?? node.op, left, right);
      if (said !== null) return said;
    }
    if (node.op === '!_') return this.clause(node.args as ASTNode);
    if (node.op === 'in') {
      const said = this.#membership(node.args as [ASTNode, ASTNode], true);
      if (said !== null) return said;
    }
    if (node.op === 'id' || node.op === '.') return this.#truth(node, false);
    return `it is not the case that ${this.clause(node)}`;
  }

  /** A boolean value as a clause: "the employee's active is true". */
  #truth(node: ASTNode, holds: boolean): string {
    const present = node.op === 'id' ? this.#present.get(node.args as string) : undefined;
    if (present) {
      const field = this.#entity.fields.find((f) => f.name === present.field);
      const name = field ? fieldWords(field.name, field.type) : words(present.field);
      return `the ${name} ${holds ? 'is given' : 'is empty'}`;
    }
    const term = this.term(node);
    if (term.kind !== 'bool') return this.#quoted(node);
    return `${term.words} is ${holds ? 'true' : 'false'}`;
  }

  /** `"agent" in assignee.roles` → "the assignee has the role agent". */
  #membership([item, list]: [ASTNode, ASTNode], negated = false): string | null {
    const what = this.term(item);
    if (list.op === '.' && (list.args as [ASTNode, string])[1] === 'roles') {
      const owner = this.term((list.args as [ASTNode, string])[0]);
      if (owner.kind === 'user') {
        // A role reads as a name, not a quoted string: "has the role agent".
        if (item.op === 'value' && typeof item.args === 'string') what.words = item.args;
        const has = owner.you ? (negated ? 'do not have' : 'have') : negated ? 'does not have' : 'has';
        return `${owner.words} ${has} the role ${what.words}`;
      }
    }
    const among = this.term(list);
    return `${what.words} is ${negated ? 'not ' : ''}one of ${among.words}`;
  }

  #comparison(op: string, leftNode: ASTNode, rightNode: ASTNode): string | null {
    // The record's side first: `now > due` reads "the due date has passed", `0 < copies` as `copies > 0`.
    if (this.#isMoment(leftNode) || (leftNode.op === 'value' && rightNode.op !== 'value')) {
      return this.#comparison(FLIPPED[op] ?? op, rightNode, leftNode);
    }
    const elapsed = this.#elapsed(op, leftNode, rightNode);
    if (elapsed !== null) return elapsed;
    const left = this.term(leftNode);
    const right = this.term(rightNode);
    if (rightNode.op === 'value' && rightNode.args === '' && (op === '==' || op === '!=')) {
      return `${left.words} ${agree(left.words, op === '==' ? 'is' : 'is not')} empty`;
    }
    if (left.kind === 'user' || right.kind === 'user') {
      const [subject, object] = right.you ? [right, left] : [left, right];
      if (subject.you && object.words === 'its creator' && (op === '==' || op === '!=')) {
        return op === '==' ? 'you created it' : 'you did not create it';
      }
      const verb = subject.you ? (op === '==' ? 'are' : 'are not') : op === '==' ? 'is' : 'is not';
      if (op === '==' || op === '!=') return `${subject.words} ${verb} ${object.words}`;
      return null;
    }
    if (this.#isSize(leftNode) && right.kind === 'number') {
      const amount = AMOUNT[op];
      const of = this.term(sizeOf(leftNode) as ASTNode);
      const unit = of.kind === 'list' ? 'items' : 'characters';
      if (amount) return `${of.words} has ${amount} ${right.words} ${unit}`;
    }
    if (left.kind === 'time' && this.#isMoment(rightNode)) {
      const now = (rightNode.args as string) === 'now';
      if (op === '<' || op === '<=') return now ? `${left.words} has passed` : `${left.words} is before today`;
      if (op === '>' || op === '>=') {
        if (now) return `${left.words} is in the future`;
        return op === '>' ? `${left.words} is after today` : `${left.words} is today or later`;
      }
    }
    const table = left.kind === 'time' || right.kind === 'time' ? TIME : NUMBER;
    const verb = table[op];
    if (!verb) return null;
    return `${left.words} ${agree(left.words, verb)} ${right.words}`;
  }

  /** `now - created_at > SLA` → "more than 4 hours have passed since it was created"; `due - today < D` → "the due date is less than D away". */
  #elapsed(op: string, leftNode: ASTNode, rightNode: ASTNode): string | null {
    if (leftNode.op !== '-') return null;
    const [later, earlier] = leftNode.args as [ASTNode, ASTNode];
    const span = this.term(rightNode);
    const amount = AMOUNT[op];
    if (!amount || span.kind !== 'duration') return null;
    if (this.#isMoment(later) && this.term(earlier).kind === 'time') {
      const have = /^1 \D/.test(span.words) ? 'has' : 'have';
      return `${amount} ${span.words} ${have} passed since ${this.#since(earlier)}`;
    }
    if (this.#isMoment(earlier) && this.term(later).kind === 'time') {
      return `${this.term(later).words} is ${amount} ${span.words} away`;
    }
    return null;
  }

  /** What "since …" says of a moment: "it was created", "the due date". */
  #since(node: ASTNode): string {
    if (node.op === 'id' && node.args === 'created_at') return 'it was created';
    if (node.op === 'id' && node.args === 'updated_at') return 'it was last changed';
    return this.term(node).words;
  }

  /** A value in words. */
  term(node: ASTNode): Term {
    switch (node.op) {
      case 'value':
        return literal(node.args);
      case 'id':
        return this.#name(node.args as string);
      case '.': {
        const [of, name] = node.args as [ASTNode, string];
        const owner = this.term(of);
        if (owner.kind === 'user' && name === 'id') return owner;
        const whose = owner.you ? 'your' : `${owner.words}’s`;
        if (owner.kind === 'user') {
          return { words: `${whose} ${words(name)}`, kind: name === 'roles' ? 'list' : 'text' };
        }
        const field = owner.entity?.fields.find((f) => f.name === name);
        const system = systemTerm(name);
        const type = field?.type;
        return {
          words: `${whose} ${field ? fieldWords(name, type) : (system?.words.replace(/^its /, '') ?? words(name))}`,
          kind: type ? this.#kind(type) : (system?.kind ?? 'other'),
          entity: type?.kind === 'reference' ? this.#referenced(type.entity) : undefined,
        };
      }
      case 'call':
      case 'rcall':
        return this.#call(node);
      case '-':
      case '+': {
        const [a, b] = node.args as [ASTNode, ASTNode];
        const left = this.term(a);
        const right = this.term(b);
        if (left.kind === 'time' && right.kind === 'duration') {
          return { words: `${right.words} ${node.op === '+' ? 'after' : 'before'} ${left.words}`, kind: 'time' };
        }
        if (left.kind === 'time' && right.kind === 'time') {
          return { words: `the time from ${right.words} to ${left.words}`, kind: 'duration' };
        }
        return { words: `${left.words} ${node.op === '+' ? 'plus' : 'minus'} ${right.words}`, kind: left.kind };
      }
      case '-_':
        return { words: `-${this.term(node.args as ASTNode).words}`, kind: 'number' };
      case 'list':
        return { words: (node.args as ASTNode[]).map((n) => this.term(n).words).join(', '), kind: 'list' };
      default:
        return { words: this.#text(node), kind: 'other' };
    }
  }

  #name(name: string): Term {
    if (name === 'now') return { words: 'now', kind: 'time' };
    if (name === 'today') return { words: 'today', kind: 'time' };
    if (name === 'user') return { words: 'you', kind: 'user', you: true };
    const count = this.#counts.get(name);
    if (count) {
      const states = count.states ? ` in state ${count.states.join(' or ')}` : '';
      const whose = count.target === 'this' ? `this ${words(this.#entity.name).toLowerCase()}` : 'you';
      const verb = count.target === 'this' ? 'is' : 'are';
      return {
        words: `the number of ${count.entity} records${states} whose ${words(count.field)} ${verb} ${whose}`,
        kind: 'number',
      };
    }
    const constant = this.#constants.get(name);
    if (constant) return constantTerm(constant);
    const field = this.#entity.fields.find((f) => f.name === name);
    if (field) {
      return {
        words: `the ${fieldWords(name, field.type)}`,
        kind: this.#kind(field.type),
        entity: field.type.kind === 'reference' ? this.#referenced(field.type.entity) : undefined,
      };
    }
    return systemTerm(name) ?? { words: words(name), kind: 'other' };
  }

  #call(node: ASTNode): Term {
    const [name, ...rest] = node.args as [string, ...unknown[]];
    const args = (node.op === 'rcall' ? [rest[0], ...(rest[1] as ASTNode[])] : (rest[0] as ASTNode[])) as ASTNode[];
    const [first] = args;
    if (name === 'size' && first) return { words: `the length of ${this.term(first).words}`, kind: 'number' };
    if (name === 'duration' && first?.op === 'value' && typeof first.args === 'string') {
      return { words: durationWords(first.args), kind: 'duration' };
    }
    if (name === 'timestamp' && first?.op === 'value') return { words: String(first.args), kind: 'time' };
    const constant = first?.op === 'id' ? this.#constants.get(first.args as string) : undefined;
    if (constant && args.length === 1 && (name === 'timestamp' || name === 'duration')) {
      // `timestamp(DEADLINE)`: the constant's date as written, whether a date constant or text.
      const written = constant.type === 'text' ? String(constant.value) : constant.raw;
      return name === 'timestamp'
        ? { words: written, kind: 'time' }
        : { words: constant.type === 'text' ? durationWords(written) : written, kind: 'duration' };
    }
    if ((name === 'int' || name === 'double' || name === 'string') && first && args.length === 1) {
      return this.term(first);
    }
    return { words: this.#text(node), kind: 'other' };
  }

  #kind(type: FieldType): Kind {
    const family = familyOf(type);
    switch (family) {
      case 'moment':
        return 'time';
      case 'number':
        return 'number';
      case 'boolean':
        return 'bool';
      case 'reference':
        return type.kind === 'reference' && type.entity === USER_ENTITY ? 'user' : 'record';
      case 'text':
      case 'choice':
      case 'file':
        return 'text';
    }
  }

  #referenced(name: string): Entity | undefined {
    return this.#entities.get(name);
  }

  #boolConstant(node: ASTNode): boolean | undefined {
    if (node.op === 'value' && typeof node.args === 'boolean') return node.args;
    if (node.op !== 'id') return undefined;
    const constant = this.#constants.get(node.args as string);
    return constant && typeof constant.value === 'boolean' ? constant.value : undefined;
  }

  #isMoment(node: ASTNode): boolean {
    return node.op === 'id' && (node.args === 'now' || node.args === 'today');
  }

  #isSize(node: ASTNode): boolean {
    return (node.op === 'call' || node.op === 'rcall') && (node.args as [string, ...unknown[]])[0] === 'size';
  }

  #text(node: ASTNode): string {
    return this.#source.slice(node.range.start, node.range.end).trim();
  }

  #quoted(node: ASTNode): string {
    return `${this.#text(node)} holds`;
  }
}

/** The node `size(x)` or `x.size()` measures. */
function sizeOf(node: ASTNode): ASTNode | undefined {
  if (node.op === 'rcall') return (node.args as [string, ASTNode, ASTNode[]])[1];
  return (node.args as [string, ASTNode[]])[1][0];
}

function literal(value: unknown): Term {
  if (typeof value === 'bigint' || typeof value === 'number') return { words: String(value), kind: 'number' };
  if (typeof value === 'boolean') return { words: String(value), kind: 'bool' };
  // Quoted, so a value reads as one ("the priority is "urgent"") and an empty one is still seen.
  return { words: JSON.stringify(String(value)), kind: 'text' };
}

/** "the book's copies are", "the renewals are": a plural name takes a plural verb. */
function agree(subject: string, verb: string): string {
  return /[^su]s$/.test(subject) ? verb.replace(/^is/, 'are') : verb;
}

function constantTerm(constant: Constant): Term {
  switch (constant.type) {
    case 'duration':
      return { words: constant.raw, kind: 'duration' };
    case 'integer':
    case 'decimal':
      return { words: constant.raw, kind: 'number' };
    case 'boolean':
      return { words: constant.raw, kind: 'bool' };
    case 'date':
    case 'datetime':
      return { words: constant.raw, kind: 'time' };
    default:
      return { words: JSON.stringify(String(constant.value)), kind: 'text' };
  }
}

function systemTerm(name: string): Term | undefined {
  switch (name) {
    case 'created_at':
      return { words: 'its creation time', kind: 'time' };
    case 'updated_at':
      return { words: 'its last change', kind: 'time' };
    case 'created_by':
      return { words: 'its creator', kind: 'user' };
    case 'state':
      return { words: 'its state', kind: 'text' };
    case 'id':
      return { words: 'its id', kind: 'text' };
    default:
      return undefined;
  }
}

/** `decision_note` → "decision note"; a date field whose name does not say so gets "date": "due date". */
function fieldWords(name: string, type: FieldType | undefined): string {
  const said = words(name);
  const dated = type !== undefined && isMoment(type);
  return dated && !/(date|day|time|_on|_at)$/i.test(name) ? `${said} date` : said;
}

function words(name: string): string {
  return name.replaceAll('_', ' ');
}

/** `72h` → "72 hours", `1h30m` → "1 hour 30 minutes"; anything else as written. */
function durationWords(text: string): string {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) return text;
  return parts
    .map(([, amount = '', unit = '']) => {
      const [one, many] = UNITS[unit] ?? [unit, unit];
      return `${amount} ${amount === '1' ? one : many}`;
    })
    .join(' ');
}
