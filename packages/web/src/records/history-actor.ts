/** The `by` of a history entry the system wrote (an automatic transition): the server's reserved actor. */
export const SYSTEM_ACTOR_ID = 'system';

/**
 * Who made a history entry, in words, when it is not a user: "The system" for an automatic
 * transition, "A signed-out visitor" for no one, "Someone" when the entry leaves `by` out (the
 * user's roles keep authors anonymous: `read except (created_by)`); null for a user's id (shown
 * by name).
 */
export function actorWords(by: string | null | undefined): string | null {
  if (by === undefined) return 'Someone';
  if (by === null) return 'A signed-out visitor';
  if (by === SYSTEM_ACTOR_ID) return 'The system';
  return null;
}
