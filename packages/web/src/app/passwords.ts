/** The server's password policy (`people/passwords.ts`), checked here first so errors show at the field. */
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 1024;

/** What is wrong with a new password, as the field says it; undefined when it will do. */
export function newPasswordError(password: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `Use at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `Use at most ${MAX_PASSWORD_LENGTH} characters.`;
  return undefined;
}

export const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** `ada@Example.org` → `example.org`. */
export function domainOf(email: string): string {
  return email
    .trim()
    .slice(email.trim().lastIndexOf('@') + 1)
    .toLowerCase();
}
