/**
 * The runtime's users table, named here because records refer to it: a `User` field and
 * `created_by` hold a user's id, rules read the user through it (`USER_FOR_EXPRESSIONS_SQL`), and a
 * backup counts its rows. The table itself, and all else about people, belongs to `people/`.
 */
export const USERS_TABLE = '_ninepoint_users';

/**
 * A user as rules and guards see one through a field referring to `User` (`borrower.name`): the
 * fields of CEL's `User` type, roles as JSON text. Never the password hash.
 */
export const USER_FOR_EXPRESSIONS_SQL = `SELECT "id", "email", "name", "roles" FROM "${USERS_TABLE}" WHERE "id" = ?`;
