import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** A person the test provider knows, by the login typed into its sign-in form. */
export interface ProviderAccount {
  email: string;
  email_verified: boolean;
  name: string;
}

/**
 * A real OpenID Connect provider (panva's oidc-provider, the certified implementation) on
 * 127.0.0.1, with one confidential client and its development sign-in pages: any login signs in
 * as the account of that name in `accounts` (changed by tests as they go).
 */
export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, ProviderAccount>;
  /**
   * Goes through the provider's pages as a browser would (cookies kept, forms posted) from an
   * authorization URL, signing in as `login`; answers the URL the provider sends the browser back
   * to (the app's callback with `code` and `state`, or `error`).
   */
  signInAt(authorizationUrl: string, login: string): Promise<URL>;
  close(): Promise<void>;
}

export async function startTestProvider(redirectUri: string): Promise<TestProvider> {
  let handle: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => {
    response.statusCode = 503;
    response.end();
  };
  const server: Server = createServer((request, response) => handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map<string, ProviderAccount>();
  const clientId = 'ninepoint-test';
  const clientSecret = 'a client secret for tests only, long enough to sign with';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      return account ? { accountId: sub, claims: () => ({ sub, ...account }) } : undefined;
    },
    cookies: { keys: ['cookie signing key for tests only'] },
    features: { devInteractions: { enabled: true } },
  });
  handle = provider.callback();

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    async signInAt(authorizationUrl, login) {
      const jar = new Map<string, string>();
      let url = authorizationUrl;
      let body: string | undefined;
      for (let step = 0; step < 20; step++) {
        const answer = await fetch(url, {
          method: body === undefined ? 'GET' : 'POST',
          redirect: 'manual',
          headers: {
            cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
            ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
          },
          ...(body === undefined ? {} : { body }),
        });
        for (const cookie of answer.headers.getSetCookie()) {
          const [pair = ''] = cookie.split(';');
          const at = pair.indexOf('=');
          jar.set(pair.slice(0, at), pair.slice(at + 1));
        }
        const location = answer.headers.get('location');
        if (location !== null) {
          const next = new URL(location, url);
          if (next.href.startsWith(redirectUri)) return next;
          url = next.href;
          body = undefined;
          continue;
        }
        // A page with a form: the sign-in (login and any password) or the consent (continue).
        const page = await answer.text();
        const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
        const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
        if (action === undefined || prompt === undefined) {
          throw new Error(`the provider answered ${answer.status} without a form: ${page.slice(0, 300)}`);
        }
        url = new URL(action, url).href;
        body = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt }).toString();
      }
      throw new Error('the provider never sent the browser back');
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
