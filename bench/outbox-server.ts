// One server of the outbox benchmark, in its own process: `node bench/outbox-server.ts with|without
// <db file> <receiver URL>`. `with` serves OUTBOX_SPEC_WITH (one call to another system and one
// notification on each create and each `approve`), `without` the same spec with point 7 not shown.
// Mail goes to the in-memory dev outbox (no SMTP server in the way). Prints {"url", "token"} once
// listening; closes on SIGTERM or when stdin ends.
import { addUser, createApiToken, createServer, Outbox } from '@ninepoint/server';
import { checkSpec } from '@ninepoint/spec';
import { OUTBOX_SPEC_WITH, OUTBOX_SPEC_WITHOUT } from './outbox-spec.ts';

const [kind, dbPath, receiver] = process.argv.slice(2);
if (!dbPath || !receiver || (kind !== 'with' && kind !== 'without')) {
  console.error('usage: node bench/outbox-server.ts with|without <db file> <receiver URL>');
  process.exit(2);
}
const { model, ok, diagnostics } = checkSpec(kind === 'with' ? OUTBOX_SPEC_WITH : OUTBOX_SPEC_WITHOUT);
if (!ok) throw new Error(`the outbox bench spec has errors: ${diagnostics[0]?.message}`);
const server = await createServer({
  model,
  dbPath,
  logger: false,
  mail: { mailer: new Outbox({ keep: 10 }), appUrl: () => 'http://bench.test' },
  outbox: {
    env: {
      HOOK_URL: receiver,
      HOOK_SECRET: `whsec_${Buffer.from('the outbox benchmark secret!').toString('base64')}`,
      CALLS_ALLOW_PRIVATE: 'true',
    },
  },
});
const roles = ['clerk'];
await addUser(server.auth, { email: 'bench@example.test', roles, password: 'bench password, long enough' }, roles);
const { secret } = await createApiToken(server.auth, 'bench@example.test', 'bench');
const url = await server.listen({ port: 0 });
console.log(JSON.stringify({ url, token: secret }));
let closing = false;
const close = async () => {
  if (closing) return;
  closing = true;
  await server.close();
  process.exit(0);
};
process.on('SIGTERM', () => void close());
process.stdin.on('end', () => void close());
process.stdin.resume();
