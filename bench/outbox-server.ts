// One server of the outbox benchmark, in its own process: `node bench/outbox-server.ts with|without
// <db file> <receiver URL>`. `with` serves OUTBOX_SPEC_WITH (one call to another system and one
// notification on each create and each `approve`), `without` the same spec with point 7 not shown.
// Mail goes to the in-memory dev outbox (no SMTP server in the way). Prints {"url", "token"} once
// listening; then, for each line `stats` on stdin, {"cpuUs", "pending", "delivered"}: the CPU
// time it has used so far and its deliveries by status. Closes on SIGTERM or when stdin ends.
import { addUser, createApiToken, createServer, DeliveriesStore, Outbox } from '@ninepoint/server';
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
const deliveries = new DeliveriesStore(server.store.sql);
let input = '';
process.stdin.on('data', (data: Buffer) => {
  input += data.toString();
  for (let nl = input.indexOf('\n'); nl >= 0; nl = input.indexOf('\n')) {
    const command = input.slice(0, nl).trim();
    input = input.slice(nl + 1);
    if (command !== 'stats') continue;
    void deliveries.counts().then((counts) => {
      const cpu = process.cpuUsage();
      console.log(
        JSON.stringify({ cpuUs: cpu.user + cpu.system, pending: counts.pending, delivered: counts.delivered }),
      );
    });
  }
});
