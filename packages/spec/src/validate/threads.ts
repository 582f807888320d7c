import type { DiagnosticBag } from '../diagnostics.ts';
import type { Model } from '../model.ts';
import { USER_ENTITY } from '../names.ts';
import { threadTextField } from '../threads.ts';

/**
 * Point 3's threads: `thread` goes on a reference to another entity's record (the conversation
 * is about that record), once per entity, and the entity must hold a text for the messages.
 */
export function validateThreads(model: Model, bag: DiagnosticBag): void {
  for (const entity of model.entities) {
    const marked = entity.fields.filter((f) => f.thread);
    marked.forEach((field, i) => {
      const where = `${entity.name}.${field.name}`;
      if (field.type.kind !== 'reference' || field.type.entity === USER_ENTITY) {
        bag.report(
          'invalid-thread',
          field.span,
          `${where} is marked thread, but it is ${field.type.kind === 'reference' ? 'a person' : `a ${field.type.kind}`}, not a reference to another entity's record.`,
          {
            hint: `Put thread on the field that names the record the conversation is about, e.g. "ticket | Ticket | required, thread".`,
          },
        );
      } else if (field.type.entity === entity.name) {
        bag.report('invalid-thread', field.span, `${where} is marked thread, but it refers to ${entity.name} itself.`, {
          hint: "A thread is a conversation on another entity's record: declare the messages as an entity of their own.",
        });
      } else if (i > 0) {
        bag.report(
          'invalid-thread',
          field.span,
          `${entity.name} is already a thread through ${marked[0]?.name ?? ''}; ${field.name} cannot make it a thread of another.`,
          { hint: `Keep thread on one reference of ${entity.name}, or declare a message entity per conversation.` },
        );
      } else if (!threadTextField(entity)) {
        bag.report(
          'thread-without-text',
          field.span,
          `${entity.name} is a thread of ${field.type.entity}, but it has no text or long text field to hold the messages.`,
          { hint: `Add a field for the words of a message, e.g. "body | long text | required".` },
        );
      }
    });
  }
}
