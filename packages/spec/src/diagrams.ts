import type { AutomaticTiming, Entity, Field, Model, StateMachine } from './model.ts';
import { USER_ENTITY } from './names.ts';

/** One picture of the model, as Mermaid text: the Studio draws it, `ninepoint diagram` prints it. */
export interface SpecDiagram {
  kind: 'states' | 'entities';
  /** E.g. "Loan states", "Entities and references". */
  title: string;
  /** The entity a state diagram is for; null for the entity-relationship diagram. */
  entity: string | null;
  mermaid: string;
}

/**
 * The model's diagrams: an entity-relationship diagram when point 3 has entities, then a state
 * diagram per state machine, in the spec's order.
 */
export function specDiagrams(model: Pick<Model, 'entities' | 'machines'>): SpecDiagram[] {
  const diagrams: SpecDiagram[] = [];
  if (model.entities.length > 0) {
    diagrams.push({
      kind: 'entities',
      title: 'Entities and references',
      entity: null,
      mermaid: entityDiagram(model.entities),
    });
  }
  for (const machine of model.machines) {
    diagrams.push({
      kind: 'states',
      title: `${machine.entity} states`,
      entity: machine.entity,
      mermaid: stateDiagram(machine),
    });
  }
  return diagrams;
}

/**
 * A Mermaid state diagram: `[*]` enters the initial state (through the creating transition when
 * there is one), and each transition is an arrow labelled with its name, who may take it, its
 * guard and what it sets. States get generated ids so that any state name draws.
 */
export function stateDiagram(machine: StateMachine): string {
  const ids = new Map(machine.states.map((s, i) => [s.name, `s${i}`]));
  const id = (state: string) => ids.get(state) ?? `s${ids.size}`;
  const lines = ['stateDiagram-v2'];
  for (const state of machine.states) lines.push(`  state "${mermaidText(state.name)}" as ${id(state.name)}`);
  const creating = machine.transitions.filter((t) => t.creates);
  if (creating.length === 0) lines.push(`  [*] --> ${id(machine.initial)}`);
  for (const t of machine.transitions) {
    const sets = (t.sets ?? []).map((a) => `${a.field} = ${a.source}`).join('; ');
    const label = [
      t.name,
      t.automatic ? automaticWords(t.automatic) : '',
      t.who.length > 0 ? `(${t.who.join(', ')})` : '',
      t.guard ? `when ${t.guard}` : '',
      sets ? `sets ${sets}` : '',
    ]
      .filter((part) => part !== '')
      .join(' ');
    const sources = t.creates ? ['[*]'] : t.from.map(id);
    for (const from of sources) lines.push(`  ${from} --> ${id(t.to)} : ${mermaidText(label)}`);
  }
  return lines.join('\n');
}

/** How the system takes a transition by itself: `⏱ after 4 hours in new`, `⏱ after SLA_RESPONSE`, `⏱ automatic`. */
function automaticWords(timing: AutomaticTiming): string {
  if (timing.kind === 'condition') return '⏱ automatic';
  const after = timing.constant ?? durationWords(timing.seconds);
  return `⏱ after ${after}${timing.state ? ` in ${timing.state}` : ''}`;
}

/** 14400 → `4 hours`: the largest unit the duration is a whole number of. */
function durationWords(seconds: number): string {
  const units: [number, string][] = [
    [604_800, 'week'],
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    if (seconds >= size && seconds % size === 0) {
      const n = seconds / size;
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  }
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/**
 * A Mermaid entity-relationship diagram: each entity with its fields (type, and whether it is
 * required or unique), and a relationship per reference field ("many loans to one book").
 */
export function entityDiagram(entities: readonly Entity[]): string {
  const lines = ['erDiagram'];
  let usesUser = false;
  for (const entity of entities) {
    lines.push(`  ${entityId(entity.name)} {`);
    for (const field of entity.fields) lines.push(`    ${attribute(field)}`);
    lines.push('  }');
  }
  for (const entity of entities) {
    for (const field of entity.fields) {
      if (field.type.kind !== 'reference') continue;
      if (field.type.entity === USER_ENTITY) usesUser = true;
      // Read from the referenced side: one book has zero or more loans; a loan has one book
      // (exactly one when the field is required, at most one otherwise).
      const own = field.required ? '||' : 'o|';
      lines.push(`  ${entityId(field.type.entity)} ${own}--o{ ${entityId(entity.name)} : "${mermaidText(field.name)}"`);
    }
  }
  if (usesUser && !entities.some((e) => e.name === USER_ENTITY)) lines.splice(1, 0, `  ${entityId(USER_ENTITY)} { }`);
  return lines.join('\n');
}

/**
 * An entity as Mermaid reads it: quoted, since a bare name that is one of its words (`Class`,
 * `Style`, `End`, `One`, `Many`, `To`) is read as syntax and the whole diagram fails to draw.
 * Entity names are letters and digits (`ENTITY_NAME`), so they need no escaping inside the quotes.
 */
function entityId(name: string): string {
  return `"${name}"`;
}

function attribute(field: Field): string {
  const type = attributeWord(field.type.kind === 'reference' ? field.type.entity : field.type.kind);
  const key = field.type.kind === 'reference' ? ' FK' : field.unique ? ' UK' : '';
  const notes = [
    field.required ? 'required' : '',
    field.type.kind === 'choice' ? field.type.values.join(' | ') : '',
  ].filter((n) => n !== '');
  const comment = notes.length > 0 ? ` "${mermaidText(notes.join(', '))}"` : '';
  return `${type} ${attributeWord(field.name)}${key}${comment}`;
}

/**
 * A field's name or type as an attribute word: in backticks when it is one of the key markers
 * (`PK`, `FK`, `UK`, in any case), which Mermaid would read as the key and fail to draw.
 */
function attributeWord(word: string): string {
  return /^(pk|fk|uk)$/i.test(word) ? `\`${word}\`` : word;
}

/**
 * Text safe inside a Mermaid label: characters Mermaid reads as syntax become its entity codes
 * (`#60;` for `<`), so a guard such as `amount <= LIMIT` draws as written.
 */
export function mermaidText(text: string): string {
  return text.replace(/[#;<>"{}:|]/g, (c) => `#${c.charCodeAt(0)};`).replace(/\s+/g, ' ');
}
