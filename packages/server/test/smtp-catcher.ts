import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A mail the catcher received, decoded enough to read: its headers' words and its plain text. */
export interface CaughtMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
}

export interface SmtpCatcher {
  /** `smtp://user:password@127.0.0.1:<port>`, for `SMTP_URL`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** Every mail received, in order. */
  readonly mails: CaughtMail[];
  /** The next mail to `to` not taken yet; waits up to `timeoutMs` for it. */
  next(to: string, timeoutMs?: number): Promise<CaughtMail>;
  /** Whether a mail to `to` arrives within `ms` (taking it if so). */
  arrives(to: string, ms: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * A real SMTP server on a free port of 127.0.0.1 (the npm package `smtp-server`) that keeps what
 * it is sent: the app under test sends through it exactly as through a provider's, with a user and
 * password, and a test reads the mail and follows its link. Plain SMTP (no STARTTLS): loopback only.
 *
 * @example
 * const smtp = await startSmtpCatcher();
 * const mail = await smtp.next('ada@example.org');
 * const link = resetLink(mail);
 */
export async function startSmtpCatcher(): Promise<SmtpCatcher> {
  const user = 'catcher';
  const password = 'catcher password';
  const mails: CaughtMail[] = [];
  const taken = new Set<CaughtMail>();
  const waiting = new Set<() => void>();
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: false,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) callback(null, { user });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const mail = parseMail(Buffer.concat(chunks).toString('utf8'));
        mail.to = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
        mails.push(mail);
        for (const wake of [...waiting]) wake();
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;

  const take = (to: string) => {
    const mail = mails.find((m) => !taken.has(m) && m.to.includes(to.toLowerCase()));
    if (mail) taken.add(mail);
    return mail;
  };
  const wait = async (to: string, ms: number): Promise<CaughtMail | undefined> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const mail = take(to);
      if (mail || Date.now() >= deadline) return mail;
      await new Promise<void>((resolve) => {
        const wake = () => {
          waiting.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, deadline - Date.now());
        waiting.add(wake);
      });
    }
  };

  return {
    url: `smtp://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    user,
    password,
    mails,
    async next(to, timeoutMs = 10_000) {
      const mail = await wait(to, timeoutMs);
      if (!mail) throw new Error(`No mail to ${to} arrived within ${timeoutMs} ms (${mails.length} received).`);
      return mail;
    },
    async arrives(to, ms) {
      return (await wait(to, ms)) !== undefined;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The password reset link of a mail. */
export function resetLink(mail: CaughtMail): URL {
  return linkTo(mail, '/reset-password');
}

/** The link of a mail to a page of the app (`/verify-email`, `/accept-invitation`), with its token. */
export function linkTo(mail: CaughtMail, page: string): URL {
  const match = new RegExp(`https?://\\S+${page}\\?token=\\S+`).exec(mail.text);
  if (!match) throw new Error(`The mail has no ${page} link:\n${mail.text}`);
  return new URL(match[0]);
}

/** Headers and the plain-text body of a single-part mail (what nodemailer writes for `text`). */
function parseMail(raw: string): CaughtMail {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const headers = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  const text =
    encoding === 'quoted-printable'
      ? quotedPrintable(body)
      : encoding === 'base64'
        ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
        : body;
  return {
    from: encodedWords(headers.get('from') ?? ''),
    to: [],
    subject: encodedWords(headers.get('subject') ?? ''),
    text: text.replace(/\r\n/g, '\n'),
  };
}

function quotedPrintable(text: string): string {
  // Every byte as %XX for decodeURIComponent, which reads UTF-8: a literal % first.
  const escaped = text.replace(/%/g, '%25').replace(/=\r?\n/g, '');
  return decodeURIComponent(escaped.replace(/=([0-9A-F]{2})/gi, '%$1'));
}

/** RFC 2047 words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`) as text. */
function encodedWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_m, _charset: string, kind: string, data: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64').toString('utf8')
        : quotedPrintable(data.replace(/_/g, ' ')),
    );
}
