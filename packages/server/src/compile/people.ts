import type { Model } from '@ninepoint/spec';

/**
 * Whether a user holding `roles` may manage people's accounts (point 6's `people` column:
 * `manage`). With no roles in point 6 every signed-in user may.
 */
export function managesPeople(model: Model, roles: readonly string[]): boolean {
  // TODO(h5): peopleAccess(model, roles).manage once the point-6 people grammar is on main.
  if (model.roles.length === 0) return true;
  return model.roles.some(
    (role) => roles.includes(role.name) && (role as { people?: { manage?: boolean } }).people?.manage === true,
  );
}
