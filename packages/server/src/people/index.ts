// People's public face: what the app, other features and the package's API may use. Everything
// else in this folder is the feature's own (e2e/layering.test.ts keeps it so).
export {
  type AccountChange,
  AccountError,
  addUser,
  changeAccount,
  checkEmail,
  checkRoles,
  createApiToken,
  recordAccountEvent,
} from './accounts.ts';
export type { RequestActor } from './auth.ts';
export { AuthStore } from './auth-store.ts';
export { type Credential, requestCredential } from './credentials.ts';
export {
  DEMO_EMAIL_DOMAIN,
  DEV_ROUTES,
  demoEmail,
  ensureDemoUsers,
  isDemoEmail,
  registerDevRoutes,
} from './dev-mode.ts';
export { type OidcSettings, OidcSettingsError, oidcSettingsFromEnv } from './oidc-settings.ts';
export { OidcStore } from './oidc-store.ts';
export { type MailOptions, PASSWORD_RESET_LIMITS, PASSWORD_RESET_ROUTES } from './password-reset.ts';
export { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, passwordProblem } from './passwords.ts';
export { PEOPLE_API, PEOPLE_CALLS } from './people-api.ts';
export { type PeopleOptions, people } from './people-plugin.ts';
export { SecretKeySettingError, secretKeyFromEnv } from './secret-key.ts';
export { SESSIONS_TABLE, type SessionFound } from './sessions-store.ts';
export { TOKENS_TABLE, type TokenFound, type TokenInfo } from './tokens-store.ts';
export { USER_ADMIN_ROUTES } from './user-admin.ts';
export type { AccountEvent, AccountHistoryEntry, ManagedAccount, UserAccount } from './users-store.ts';
