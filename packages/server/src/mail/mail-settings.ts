/**
 * How the app sends email, from its environment (`ninepoint serve` and `dev`):
 *
 * - `SMTP_URL=smtp://user:password@host:587` (`smtps://` for TLS from the first byte), or
 *   `SMTP_HOST`, `SMTP_PORT`, `SMTP_USER`, `SMTP_PASSWORD`, `SMTP_SECURE` one by one;
 * - `MAIL_FROM`: the sender, `Lending desk <desk@example.org>` or `desk@example.org`;
 * - `APP_URL`: the address people open the app at (`https://desk.example.org`), which links in
 *   mails point to. It is never taken from a request: a forged `Host` header would otherwise send
 *   people a reset link to another site.
 */
export interface MailSettings {
  /** Null when no SMTP server is configured. */
  smtp: SmtpSettings | null;
  from: string | null;
  appUrl: string | null;
}

export interface SmtpSettings {
  host: string;
  port: number;
  /** TLS from the start (port 465); otherwise STARTTLS when the server offers it. */
  secure: boolean;
  user: string | null;
  password: string | null;
}

/** Why the email settings cannot be used; the message names the variable and what to write. */
export class MailSettingsError extends Error {
  override name = 'MailSettingsError';
}

const SMTP_PARTS = ['SMTP_HOST', 'SMTP_PORT', 'SMTP_USER', 'SMTP_PASSWORD', 'SMTP_SECURE'] as const;

/**
 * Reads and checks the email settings. Without SMTP settings it answers `smtp: null` (mail is not
 * sent); with them, `MAIL_FROM` is required, and `APP_URL` too unless `appUrlOptional` (dev mode,
 * which links to its own address). Throws `MailSettingsError` for anything it cannot use.
 */
export function mailSettingsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  options: { appUrlOptional?: boolean } = {},
): MailSettings {
  const value = (name: string) => {
    const text = env[name]?.trim();
    return text ? text : null;
  };
  const url = value('SMTP_URL');
  const parts = SMTP_PARTS.filter((name) => value(name) !== null);
  let smtp: SmtpSettings | null = null;
  if (url !== null) {
    if (parts.length > 0) {
      throw new MailSettingsError(`Set SMTP_URL or ${parts.join(', ')}, not both.`);
    }
    smtp = smtpFromUrl(url);
  } else if (parts.length > 0) {
    smtp = smtpFromParts(value);
  }
  const from = value('MAIL_FROM');
  if (from !== null) checkFrom(from);
  const appUrl = value('APP_URL');
  const origin = appUrl === null ? null : checkAppUrl(appUrl);
  if (smtp !== null && from === null) {
    throw new MailSettingsError(
      'MAIL_FROM is required with the SMTP settings: the sender, e.g. "Desk <desk@example.org>".',
    );
  }
  if (smtp !== null && origin === null && !options.appUrlOptional) {
    throw new MailSettingsError(
      'APP_URL is required with the SMTP settings: the address people open the app at, e.g. https://desk.example.org (links in mails point there).',
    );
  }
  return { smtp, from, appUrl: origin };
}

function smtpFromUrl(text: string): SmtpSettings {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new MailSettingsError(
      'SMTP_URL is not a URL; write smtp://user:password@host:587 (or smtps:// for port 465).',
    );
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new MailSettingsError(`SMTP_URL must start with smtp:// or smtps://, not ${url.protocol}//.`);
  }
  if (url.hostname === '') throw new MailSettingsError('SMTP_URL has no host: smtp://user:password@host:587.');
  const secure = url.protocol === 'smtps:';
  const user = url.username === '' ? null : decodeURIComponent(url.username);
  const password = url.password === '' ? null : decodeURIComponent(url.password);
  if ((user === null) !== (password === null)) {
    throw new MailSettingsError('SMTP_URL must give both a user and a password, or neither.');
  }
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
    secure,
    user,
    password,
  };
}

function smtpFromParts(value: (name: string) => string | null): SmtpSettings {
  const host = value('SMTP_HOST');
  if (host === null) {
    const given = SMTP_PARTS.filter((name) => value(name) !== null).join(', ');
    throw new MailSettingsError(`${given} ${given.includes(',') ? 'are' : 'is'} set but SMTP_HOST is not.`);
  }
  const secureText = value('SMTP_SECURE');
  if (secureText !== null && !/^(true|false)$/i.test(secureText)) {
    throw new MailSettingsError(`SMTP_SECURE must be true or false, not "${secureText}".`);
  }
  const portText = value('SMTP_PORT');
  if (portText !== null && (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535)) {
    throw new MailSettingsError(`SMTP_PORT must be a whole number from 1 to 65535, not "${portText}".`);
  }
  const port = portText === null ? (secureText?.toLowerCase() === 'true' ? 465 : 587) : Number(portText);
  // Port 465 speaks TLS from the first byte; any other, STARTTLS when the server offers it.
  const secure = secureText === null ? port === 465 : secureText.toLowerCase() === 'true';
  const user = value('SMTP_USER');
  const password = value('SMTP_PASSWORD');
  if ((user === null) !== (password === null)) {
    throw new MailSettingsError('Set both SMTP_USER and SMTP_PASSWORD, or neither.');
  }
  return { host, port, secure, user, password };
}

const ADDRESS = /^[^\s@<>"]+@[^\s@<>"]+$/;

function checkFrom(from: string): void {
  const named = /^[^<>\r\n]*<([^<>\s]+)>$/.exec(from);
  const address = named ? named[1] : from;
  if (address === undefined || !ADDRESS.test(address)) {
    throw new MailSettingsError(
      `MAIL_FROM must be an email address, "desk@example.org" or "Desk <desk@example.org>", not "${from}".`,
    );
  }
}

/** The origin of `APP_URL`, the only part links use. */
function checkAppUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new MailSettingsError(`APP_URL must be a URL such as https://desk.example.org, not "${text}".`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '') {
    throw new MailSettingsError(`APP_URL must be an http:// or https:// address without a user, not "${text}".`);
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw new MailSettingsError(
      `APP_URL must be the app's address alone (the app is served at its root), e.g. ${url.origin}, not "${text}".`,
    );
  }
  return url.origin;
}
