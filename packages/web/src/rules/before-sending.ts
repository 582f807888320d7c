import type { Model } from '@ninepoint/spec';
import type { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../api/client.ts';
import type { Write } from './record-rules.ts';

/**
 * The point-5 rules and transition guards, checked before a write is sent (see `record-rules.ts`).
 * That module bundles the CEL evaluator, so it is loaded only when a screen may send a write with
 * something to check, and not by the app's first load.
 */
const rules = () => import('./record-rules.ts');

/** Whether a write has a rule or guard the browser may check: a create, an update, or taking `transition`. */
export function hasRuleChecks(
  model: Model,
  entity: string,
  kind: 'create' | 'update' | 'transition',
  transition?: string,
): boolean {
  const machine = model.machines.find((m) => m.entity === entity);
  const taken =
    kind === 'create'
      ? machine?.transitions.find((t) => t.creates)
      : kind === 'transition'
        ? machine?.transitions.find((t) => t.name === transition)
        : undefined;
  if (taken?.guard) return true;
  return model.rules.some(
    (r) =>
      r.appliesTo.entity === entity &&
      r.condition.kind === 'expression' &&
      (r.appliesTo.transition === null || r.appliesTo.transition === taken?.name),
  );
}

/** Starts loading the checks, so that sending does not wait for them. */
export function preloadRuleChecks(): void {
  rules().catch(() => undefined);
}

/**
 * The refusal the server would answer to this write because of a rule or guard, as an `ApiError`
 * carrying the problem it would send; null when the browser finds nothing wrong or cannot check
 * (the server checks every write anyway).
 */
export async function refusalBeforeSending(client: QueryClient, model: Model, write: Write): Promise<ApiError | null> {
  const transition = write.kind === 'transition' ? write.transition : undefined;
  if (!hasRuleChecks(model, write.entity, write.kind, transition)) return null;
  try {
    const { apiFetcher, checkBeforeSending, writeInput } = await rules();
    const input = writeInput(model, write);
    if (!input) return null;
    const { problem } = await checkBeforeSending(model, input, apiFetcher(client, model));
    return problem ? new ApiError(problem) : null;
  } catch {
    // The checks could not be loaded or run: the server's answer will say.
    return null;
  }
}
