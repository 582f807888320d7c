import { collectionName } from '@ninepoint/spec';
import { label } from '../app/screens.ts';

/** `ExpenseReport` → `Expense reports`. */
export function collectionLabel(entity: string): string {
  return label(collectionName(entity).replaceAll('-', ' '));
}

/** `ExpenseReport` → `Expense report`. */
export function entityLabel(entity: string): string {
  return label(entity);
}

/** `ExpenseReport` → `expense report`, for the middle of a sentence. */
export function entityWords(entity: string): string {
  return label(entity).toLowerCase();
}
