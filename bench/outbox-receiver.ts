// The outbox benchmark's receiver of calls, in a process of its own (`node bench/outbox-receiver.ts`):
// answers every request 204 once its body is read, as a receiver on another machine would. Prints
// {"url"} once listening, then for each line `count` on stdin {"calls"}: how many it has taken.
// Its own process so that taking calls does not slow the load generator's event loop, which the
// two shared before (a receiver is another system, not part of the load). Ends when stdin ends.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let calls = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    calls++;
    res.statusCode = 204;
    res.end();
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks` }));
let input = '';
process.stdin.on('data', (data: Buffer) => {
  input += data.toString();
  for (let nl = input.indexOf('\n'); nl >= 0; nl = input.indexOf('\n')) {
    const command = input.slice(0, nl).trim();
    input = input.slice(nl + 1);
    if (command === 'count') console.log(JSON.stringify({ calls }));
  }
});
process.stdin.on('end', () => {
  server.closeAllConnections();
  server.close();
});
