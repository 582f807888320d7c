import { type Model, type Transition, timeBound } from '@ninepoint/spec';
import { STATE_SINCE_COLUMN } from '../compile/sql-schema.ts';

/**
 * One transition the system takes, as the scheduler looks for its due records: the states it
 * leaves and, where it can tell, the time column that must be at or before `now - seconds` (one
 * indexed comparison). Without one, every record in the from-states is tried (the guard decides).
 */
export interface DueKind {
  entity: string;
  transition: Transition;
  states: readonly string[];
  /** The column of the record's time a due record has at or before `now - seconds`, or null. */
  column: string | null;
  seconds: number;
  /** `after` a time in a state: the record must still have entered its state by then when taken. */
  waits: boolean;
}

/** The transitions of a model the system takes, each as a due kind. */
export function dueKinds(model: Pick<Model, 'machines' | 'constants' | 'entities'>): DueKind[] {
  const kinds: DueKind[] = [];
  for (const machine of model.machines) {
    const entity = model.entities.find((e) => e.name === machine.entity);
    for (const transition of machine.transitions) {
      const timing = transition.automatic;
      if (!timing || transition.creates) continue;
      if (timing.kind === 'after') {
        kinds.push({
          entity: machine.entity,
          transition,
          states: timing.state === null ? transition.from : [timing.state],
          column: STATE_SINCE_COLUMN,
          seconds: timing.seconds,
          waits: true,
        });
        continue;
      }
      const bound = transition.guard === null ? null : timeBound(transition.guard, model.constants);
      // Only the record's own times can be compared in its table: a reference's are left to the guard.
      const own =
        bound !== null &&
        (bound.field === 'created_at' ||
          bound.field === 'updated_at' ||
          entity?.fields.some((f) => f.name === bound.field && (f.type.kind === 'date' || f.type.kind === 'datetime')));
      kinds.push({
        entity: machine.entity,
        transition,
        states: transition.from,
        column: own && bound ? bound.field : null,
        seconds: own && bound ? bound.seconds : 0,
        waits: false,
      });
    }
  }
  return kinds;
}
