import type { Entity, Field, Model } from './model.ts';

/**
 * A thread: an entity whose records are a conversation on another entity's record (a
 * TicketComment on its Ticket), declared by `thread` in the rules of the reference to it. The
 * message is the entity's first long text field, else its first text field.
 */
export interface Thread {
  /** The entity whose records are the messages. */
  entity: string;
  /** The reference field naming the record the conversation is about. */
  parentField: string;
  /** The entity of that record. */
  parent: string;
  /** The field holding a message's words. */
  textField: string;
}

/** The field that holds a thread's message: the first long text, else the first text. */
export function threadTextField(entity: Entity): Field | undefined {
  return (
    entity.fields.find((f) => f.type.kind === 'longText' && !f.thread) ??
    entity.fields.find((f) => f.type.kind === 'text' && !f.thread)
  );
}

/** The thread an entity is, when one of its references says `thread` and it holds a text. */
export function threadOf(model: Model, entity: string): Thread | undefined {
  const declared = model.entities.find((e) => e.name === entity);
  if (!declared) return undefined;
  const field = declared.fields.find((f) => f.thread);
  const text = threadTextField(declared);
  if (field?.type.kind !== 'reference' || !text) return undefined;
  const parent = field.type.entity;
  if (!model.entities.some((e) => e.name === parent)) return undefined;
  return { entity, parentField: field.name, parent, textField: text.name };
}

/** The threads on an entity's records, in the order point 3 declares them. */
export function threadsOn(model: Model, parent: string): Thread[] {
  return model.entities.flatMap((e) => {
    const thread = threadOf(model, e.name);
    return thread && thread.parent === parent ? [thread] : [];
  });
}
