/** How the system appears in history (`by`) and the API: a reserved actor, never a user's id. */
export const SYSTEM_ACTOR_ID = 'system';
