import Database from 'better-sqlite3';
const db = new Database('/tmp/probe/orders.db');
const cols = '"id", "created_at", "updated_at", "created_by", "_version", "customer", "number", "item", "quantity", "unit_price", "ordered_on", "ship_by", "express", "note"';
const mid = db.prepare('SELECT created_at, id FROM orders WHERE id = ?').get('01900000-0000-7000-8000-00000000c350') as { created_at: string; id: string };
const res: Record<string, number[]> = {};
const time = (name: string, fn: () => unknown, n = 4000) => { const t = performance.now(); for (let i = 0; i < n; i++) fn(); (res[name] ??= []).push(((performance.now() - t) * 1000) / n); };
const deepP = db.prepare(`SELECT ${cols} FROM "orders" WHERE ("created_at", "id") > (?, ?) ORDER BY "created_at" ASC, "id" ASC LIMIT ?`);
const deepL = db.prepare(`SELECT ${cols} FROM "orders" WHERE ("created_at", "id") > ('${mid.created_at}', '${mid.id}') ORDER BY "created_at" ASC, "id" ASC LIMIT 51`);
const first = db.prepare(`SELECT ${cols} FROM "orders" ORDER BY "created_at" ASC, "id" ASC LIMIT ?`);
const cust = '00000000-0000-7000-8000-000000000001';
const filtP = db.prepare(`SELECT ${cols} FROM "orders" WHERE "customer" = ? ORDER BY "created_at" ASC, "id" ASC LIMIT ?`);
const filtL = db.prepare(`SELECT ${cols} FROM "orders" WHERE "customer" = '${cust}' ORDER BY "created_at" ASC, "id" ASC LIMIT 51`);
const getP = db.prepare(`SELECT ${cols} FROM "orders" WHERE "id" = ?`);
const getL = db.prepare(`SELECT ${cols} FROM "orders" WHERE "id" = '${mid.id}'`);
for (let r = 0; r < 4; r++) {
  time('first page (LIMIT ? only)', () => first.all(51));
  time('middle page, bound', () => deepP.all(mid.created_at, mid.id, 51));
  time('middle page, literal', () => deepL.all());
  time('filter customer, bound', () => filtP.all(cust, 51));
  time('filter customer, literal', () => filtL.all());
  time('get by id, bound', () => getP.get(mid.id), 40000);
  time('get by id, literal', () => getL.get(), 40000);
}
for (const [k, v] of Object.entries(res)) console.log(k.padEnd(28), v.slice(1).map((x) => x.toFixed(1)).join(' '), 'µs');
