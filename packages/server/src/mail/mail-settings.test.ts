import { describe, expect, it } from 'vitest';
import { MailSettingsError, mailSettingsFromEnv } from './mail-settings.ts';

const FROM = 'Desk <desk@example.org>';
const APP_URL = 'https://desk.example.org';

describe('the email settings', () => {
  it('are none without SMTP settings: mail is not sent', () => {
    expect(mailSettingsFromEnv({})).toEqual({ smtp: null, from: null, appUrl: null });
    expect(mailSettingsFromEnv({ SMTP_URL: '  ', MAIL_FROM: '' })).toEqual({ smtp: null, from: null, appUrl: null });
  });

  it('read SMTP_URL with its user and password (decoded), port and TLS', () => {
    const env = { MAIL_FROM: FROM, APP_URL: `${APP_URL}/` };
    expect(mailSettingsFromEnv({ ...env, SMTP_URL: 'smtp://mailer:p%40ss%3Aword@smtp.example.org:2525' })).toEqual({
      smtp: { host: 'smtp.example.org', port: 2525, secure: false, user: 'mailer', password: 'p@ss:word' },
      from: FROM,
      appUrl: APP_URL,
    });
    expect(mailSettingsFromEnv({ ...env, SMTP_URL: 'smtps://u:p@smtp.example.org' }).smtp).toMatchObject({
      port: 465,
      secure: true,
    });
    expect(mailSettingsFromEnv({ ...env, SMTP_URL: 'smtp://relay.internal' }).smtp).toEqual({
      host: 'relay.internal',
      port: 587,
      secure: false,
      user: null,
      password: null,
    });
  });

  it('read SMTP_HOST, SMTP_PORT, SMTP_USER, SMTP_PASSWORD and SMTP_SECURE one by one', () => {
    const env = { MAIL_FROM: 'desk@example.org', APP_URL };
    expect(
      mailSettingsFromEnv({
        ...env,
        SMTP_HOST: 'smtp.example.org',
        SMTP_PORT: '465',
        SMTP_USER: 'mailer',
        SMTP_PASSWORD: 'secret',
      }).smtp,
    ).toEqual({ host: 'smtp.example.org', port: 465, secure: true, user: 'mailer', password: 'secret' });
    expect(mailSettingsFromEnv({ ...env, SMTP_HOST: 'smtp.example.org', SMTP_SECURE: 'TRUE' }).smtp).toMatchObject({
      port: 465,
      secure: true,
    });
    expect(mailSettingsFromEnv({ ...env, SMTP_HOST: 'smtp.example.org' }).smtp).toMatchObject({
      port: 587,
      secure: false,
    });
  });

  it.each([
    [{ SMTP_URL: 'http://smtp.example.org' }, 'SMTP_URL must start with smtp:// or smtps://, not http://.'],
    [{ SMTP_URL: 'not a url' }, 'SMTP_URL is not a URL'],
    [{ SMTP_URL: 'smtp://user@smtp.example.org' }, 'SMTP_URL must give both a user and a password, or neither.'],
    [{ SMTP_URL: 'smtp://smtp.example.org', SMTP_HOST: 'other' }, 'Set SMTP_URL or SMTP_HOST, not both.'],
    [{ SMTP_PORT: '25' }, 'SMTP_PORT is set but SMTP_HOST is not.'],
    [{ SMTP_USER: 'u', SMTP_PASSWORD: 'p' }, 'SMTP_USER, SMTP_PASSWORD are set but SMTP_HOST is not.'],
    [{ SMTP_HOST: 'h', SMTP_PORT: 'abc' }, 'SMTP_PORT must be a whole number from 1 to 65535, not "abc".'],
    [{ SMTP_HOST: 'h', SMTP_PORT: '70000' }, 'SMTP_PORT must be a whole number from 1 to 65535, not "70000".'],
    [{ SMTP_HOST: 'h', SMTP_SECURE: 'yes' }, 'SMTP_SECURE must be true or false, not "yes".'],
    [{ SMTP_HOST: 'h', SMTP_USER: 'u' }, 'Set both SMTP_USER and SMTP_PASSWORD, or neither.'],
  ])('refuse %o, saying what to write', (env, message) => {
    expect(() => mailSettingsFromEnv({ MAIL_FROM: FROM, APP_URL, ...env })).toThrow(MailSettingsError);
    expect(() => mailSettingsFromEnv({ MAIL_FROM: FROM, APP_URL, ...env })).toThrow(message);
  });

  it('need MAIL_FROM, an address, with SMTP settings', () => {
    expect(() => mailSettingsFromEnv({ SMTP_HOST: 'h', APP_URL })).toThrow('MAIL_FROM is required');
    expect(() => mailSettingsFromEnv({ SMTP_HOST: 'h', APP_URL, MAIL_FROM: 'Desk' })).toThrow(
      'MAIL_FROM must be an email address',
    );
    expect(() => mailSettingsFromEnv({ SMTP_HOST: 'h', APP_URL, MAIL_FROM: 'Desk <a@b>\r\nBcc: x@y' })).toThrow(
      'MAIL_FROM must be an email address',
    );
  });

  it('need APP_URL with SMTP settings, except in dev mode, and keep only its origin', () => {
    const env = { SMTP_HOST: 'h', MAIL_FROM: FROM };
    expect(() => mailSettingsFromEnv(env)).toThrow('APP_URL is required');
    expect(mailSettingsFromEnv(env, { appUrlOptional: true }).appUrl).toBeNull();
    expect(mailSettingsFromEnv({ ...env, APP_URL: 'http://localhost:3000' }).appUrl).toBe('http://localhost:3000');
    for (const bad of ['desk.example.org', 'ftp://desk.example.org', 'https://u:p@desk.example.org']) {
      expect(() => mailSettingsFromEnv({ ...env, APP_URL: bad })).toThrow('APP_URL must be');
    }
    expect(() => mailSettingsFromEnv({ ...env, APP_URL: 'https://example.org/desk' })).toThrow(
      "APP_URL must be the app's address alone (the app is served at its root), e.g. https://example.org",
    );
  });
});
