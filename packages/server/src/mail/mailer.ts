import type { Transporter } from 'nodemailer';
import type { SmtpSettings } from './mail-settings.ts';

/** A mail the app sends: plain text, to one person. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** A mail as an outbox keeps it. */
export interface KeptMail extends Mail {
  id: number;
  from: string;
  /** ISO 8601. */
  sentAt: string;
}

/**
 * How the app sends mail: through an SMTP server, or into a development outbox. Sending throws
 * when the mail could not be handed over; callers that answer before sending log it instead.
 */
export interface Mailer {
  readonly kind: 'smtp' | 'outbox';
  send(mail: Mail): Promise<void>;
  /** Whether the mail server answers and takes the credentials; throws why not. */
  verify(): Promise<void>;
}

/** Seconds an SMTP server has to answer each step: a dead server must not hold mails for minutes. */
const SMTP_TIMEOUT_MS = 20_000;

/**
 * A mailer that hands each mail to an SMTP server (nodemailer): STARTTLS when the server offers
 * it, or TLS from the start when `secure`; one connection per mail, so nothing is left to close.
 * nodemailer is loaded at the first mail or check, not at start: loading it took about 50 ms of
 * every start of the server, the CLI and each test file that imports the server.
 */
export function smtpMailer(smtp: SmtpSettings, from: string): Mailer {
  let transport: Promise<Transporter> | undefined;
  const open = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        host: smtp.host,
        port: smtp.port,
        secure: smtp.secure,
        ...(smtp.user !== null && smtp.password !== null ? { auth: { user: smtp.user, pass: smtp.password } } : {}),
        connectionTimeout: SMTP_TIMEOUT_MS,
        greetingTimeout: SMTP_TIMEOUT_MS,
        socketTimeout: SMTP_TIMEOUT_MS,
      }),
    ));
  return {
    kind: 'smtp',
    async send(mail) {
      await (await open()).sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    async verify() {
      await (await open()).verify();
    },
  };
}

/** The sender an outbox shows when `MAIL_FROM` is not set. */
export const OUTBOX_FROM = 'Ninepoint (dev) <no-reply@dev.ninepoint.test>';

/**
 * `ninepoint dev`'s mailer when no SMTP server is configured: each mail is printed to the terminal,
 * links and all, and the last `keep` are kept in memory for `GET /api/dev/outbox`. Nothing leaves
 * the machine.
 */
export class Outbox implements Mailer {
  readonly kind = 'outbox';
  readonly #from: string;
  readonly #keep: number;
  readonly #print: (line: string) => void;
  #mails: KeptMail[] = [];
  #next = 1;

  constructor(options: { from?: string | null; keep?: number; print?: (line: string) => void } = {}) {
    this.#from = options.from ?? OUTBOX_FROM;
    this.#keep = options.keep ?? 50;
    this.#print = options.print ?? (() => {});
  }

  async send(mail: Mail): Promise<void> {
    const kept: KeptMail = { id: this.#next++, from: this.#from, ...mail, sentAt: new Date().toISOString() };
    this.#mails = [kept, ...this.#mails].slice(0, this.#keep);
    const body = mail.text
      .trimEnd()
      .split('\n')
      .map((line) => `  ${line}`.trimEnd());
    this.#print(
      [
        `Ninepoint: mail to ${mail.to} (kept in the dev outbox, GET /api/dev/outbox; not sent: no SMTP settings)`,
        `  Subject: ${mail.subject}`,
        ...body,
      ].join('\n'),
    );
  }

  /** The mails kept, newest first. */
  mails(): KeptMail[] {
    return [...this.#mails];
  }

  async verify(): Promise<void> {}
}
