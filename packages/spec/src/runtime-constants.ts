import type { Model } from './model.ts';

/**
 * Constants with these names in point 9 tune the runtime; each is an integer in `[min, max]`.
 * Unlisted ones take the default.
 */
export const RUNTIME_CONSTANTS = {
  PAGE_SIZE: { default: 50, min: 1, max: 1000, meaning: 'records per page of a list when the client does not ask' },
  MAX_PAGE_SIZE: { default: 200, min: 1, max: 10000, meaning: 'the largest page a client may ask for' },
  RATE_LIMIT_PER_MINUTE: {
    default: 600,
    min: 1,
    max: 1_000_000,
    meaning: 'calls one user or address may make per minute',
  },
  MAX_BODY_BYTES: { default: 1_048_576, min: 1024, max: 104_857_600, meaning: 'the largest request body accepted' },
  REQUEST_TIMEOUT_SECONDS: {
    default: 30,
    min: 1,
    max: 3600,
    meaning: 'seconds a client has to send one whole request',
  },
  SESSION_IDLE_MINUTES: { default: 60, min: 1, max: 525_600, meaning: 'a session ends after this long without use' },
  SESSION_MAX_HOURS: {
    default: 168,
    min: 1,
    max: 8760,
    meaning: 'a session ends this long after sign-in, used or not',
  },
  SIGN_IN_ATTEMPTS_PER_15_MINUTES: {
    default: 10,
    min: 1,
    max: 10_000,
    meaning: 'failed sign-ins per account or address before a lockout',
  },
  PASSWORD_RESET_MINUTES: {
    default: 60,
    min: 5,
    max: 10_080,
    meaning: 'a password reset link works this long after it is sent',
  },
  EMAIL_VERIFICATION_HOURS: {
    default: 24,
    min: 1,
    max: 720,
    meaning: 'a sign-up’s email confirmation link works this long after it is sent',
  },
  INVITATION_DAYS: { default: 7, min: 1, max: 90, meaning: 'an invitation’s link works this long after it is sent' },
  CALLS_TIMEOUT_SECONDS: {
    default: 10,
    min: 1,
    max: 120,
    meaning: 'seconds a call to another system may take before it counts as failed and is tried again',
  },
  CODE_TIMEOUT_SECONDS: {
    default: 10,
    min: 1,
    max: 300,
    meaning: 'seconds a module beside the spec (a custom call, hook or job) may run before it is stopped',
  },
  CALLS_RETRY_HOURS: {
    default: 24,
    min: 0,
    max: 720,
    meaning: 'hours a failing call or mail is tried again, with growing pauses, before it is marked dead',
  },
} as const satisfies Record<string, { default: number; min: number; max: number; meaning: string }>;

export type RuntimeSettings = { -readonly [K in keyof typeof RUNTIME_CONSTANTS]: number };

/** The runtime settings of a checked model: its point-9 values where given, defaults elsewhere. */
export function runtimeSettings(model: Pick<Model, 'constants'>): RuntimeSettings {
  const settings = Object.fromEntries(
    Object.entries(RUNTIME_CONSTANTS).map(([k, v]) => [k, v.default]),
  ) as RuntimeSettings;
  for (const c of model.constants) {
    if (c.name in RUNTIME_CONSTANTS && typeof c.value === 'number') settings[c.name as keyof RuntimeSettings] = c.value;
  }
  return settings;
}
