/**
 * Sign-in with an OpenID Connect provider, from the environment (`ninepoint serve` and `dev`):
 *
 * - `OIDC_ISSUER`: the provider's issuer URL (`https://accounts.example.org`), whose
 *   `/.well-known/openid-configuration` describes it. Plain `http://` only for a provider on this
 *   machine (localhost, 127.0.0.1, ::1): anywhere else tokens would cross the network in clear.
 * - `OIDC_CLIENT_ID`, and `OIDC_CLIENT_SECRET` for a confidential client (none: a public client,
 *   which PKCE protects).
 * - `OIDC_NAME`: what the sign-in button says ("Sign in with Example SSO"); default "single sign-on".
 * - `APP_URL` (shared with the mail settings): the provider sends people back to
 *   `APP_URL/api/auth/oidc/callback`, the redirect URI to register with it.
 */
export interface OidcSettings {
  issuer: URL;
  clientId: string;
  clientSecret: string | null;
  name: string;
  /** Where the provider sends people back: `APP_URL/api/auth/oidc/callback`. */
  redirectUri: string;
}

/** Why the OpenID Connect settings cannot be used; the message names the variable. */
export class OidcSettingsError extends Error {
  override name = 'OidcSettingsError';
}

export const OIDC_CALLBACK_PATH = '/api/auth/oidc/callback';
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Reads and checks the OpenID Connect settings: null without `OIDC_ISSUER`. `appUrl` is the checked
 * `APP_URL` (see mail-settings.ts). Throws `OidcSettingsError` for anything it cannot use.
 */
export function oidcSettingsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  appUrl: string | null,
): OidcSettings | null {
  const value = (name: string) => {
    const text = env[name]?.trim();
    return text ? text : null;
  };
  const issuerText = value('OIDC_ISSUER');
  const others = ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_NAME'].filter((name) => value(name) !== null);
  if (issuerText === null) {
    if (others.length > 0) throw new OidcSettingsError(`${others.join(', ')} given without OIDC_ISSUER.`);
    return null;
  }
  let issuer: URL;
  try {
    issuer = new URL(issuerText);
  } catch {
    throw new OidcSettingsError(
      `OIDC_ISSUER must be the provider's URL, e.g. https://accounts.example.org, not "${issuerText}".`,
    );
  }
  if (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && LOOPBACK.has(issuer.hostname))) {
    throw new OidcSettingsError(
      `OIDC_ISSUER must be an https:// address (http:// only for a provider on this machine), not "${issuerText}".`,
    );
  }
  const clientId = value('OIDC_CLIENT_ID');
  if (clientId === null) throw new OidcSettingsError('OIDC_CLIENT_ID is required with OIDC_ISSUER.');
  if (appUrl === null) {
    throw new OidcSettingsError(
      `APP_URL is required with OIDC_ISSUER: the address people open the app at; the provider sends them back to APP_URL${OIDC_CALLBACK_PATH}.`,
    );
  }
  return {
    issuer,
    clientId,
    clientSecret: value('OIDC_CLIENT_SECRET'),
    name: value('OIDC_NAME') ?? 'single sign-on',
    redirectUri: `${appUrl}${OIDC_CALLBACK_PATH}`,
  };
}
