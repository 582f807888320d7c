/**
 * Every path the runtime documents besides a spec's own, in the OpenAPI document's order: written
 * out here (not read from the server's `SYSTEM_ROUTES`) so a test notices a call added or lost.
 */
export const SYSTEM_PATHS: readonly string[] = [
  '/api/health',
  '/api/spec',
  '/api/openapi.json',
  '/api/docs',
  '/api/auth/sign-in',
  '/api/auth/sign-out',
  '/api/auth/password-reset',
  '/api/auth/password-reset/confirm',
  '/api/auth/sign-up',
  '/api/auth/verify-email',
  '/api/invitations',
  '/api/invitations/{id}',
  '/api/invitations/accept',
  '/api/invitations/lookup',
  '/api/auth/me',
  '/api/users',
  '/api/users/{id}',
  '/api/users/{id}/history',
  '/api/events',
  '/api/views',
  '/api/views/{id}',
  '/api/deliveries',
  '/api/deliveries/{id}/retry',
  '/api/notifications',
  '/api/notifications/read',
  '/api/notifications/{id}/read',
];
