import { it } from 'vitest';
import { TEST_DATABASES } from '../packages/server/test/databases.ts';
import { exampleSource, inDays, Walk } from './walk.ts';

it('probes', async () => {
  const walk = await Walk.start(exampleSource('lending-desk.md'), TEST_DATABASES[0]!);
  const desk = walk.as(await walk.user(['staff'], 'desk'));
  const m = await walk.user(['member'], 'm');
  const b = await desk.create('/api/books', { title: 'A', author: 'B', isbn: '9780000000001', shelf: 'A-1' });
  const l = await desk.create('/api/loans', { book: b.id, borrower: m.id, due: inDays(3) });
  for (const body of [{ due: inDays(5), renewals: 1 }, { due: inDays(6), renewals: 2 }, { due: inDays(7), renewals: 2 }, { due: inDays(8) }, {}]) {
    const a = await desk.post(`/api/loans/${l.id}/renew`, body);
    console.log(JSON.stringify(body), a.status, a.body.code ?? '', a.body.detail ?? '', a.body.renewals);
  }
  await walk.close();
});
