import Database from 'better-sqlite3';
const db = new Database('/tmp/probe/orders.db');
db.pragma('journal_mode = WAL');
const h = (db.prepare('select token_hash from _ninepoint_tokens').get() as { token_hash: string }).token_hash;
const bench = (name: string, fn: () => unknown) => { for (let r = 0; r < 3; r++) { const t = performance.now(); for (let i = 0; i < 50000; i++) fn(); if (r === 2) console.log(name.padEnd(40), ((performance.now() - t) * 20 / 1000).toFixed(2), 'µs'); } };
const J = `FROM "_ninepoint_tokens" t JOIN "_ninepoint_users" u ON u."id" = t."user_id" WHERE t."token_hash" = ? AND t."revoked_at" IS NULL`;
for (const cols of ['u.id', 'u.id, u.roles', 'u.id, u.email, u.name, u.roles', 'u.id, u.email, u.name, u.roles, u.password_hash, u.created_at', 'u.id, u.email, u.name, u.roles, u.password_hash, u.created_at, t.id AS t_id, t.last_used_at AS t_used']) {
  const st = db.prepare(`SELECT ${cols} ${J}`);
  bench(`get ${cols.split(',').length} cols`, () => st.get(h));
  bench(`all ${cols.split(',').length} cols`, () => st.all(h));
}
const t1 = db.prepare('SELECT id, user_id, last_used_at FROM _ninepoint_tokens WHERE token_hash = ? AND revoked_at IS NULL');
const u1 = db.prepare('SELECT id, email, name, roles, password_hash, created_at FROM _ninepoint_users WHERE id = ?');
bench('two statements', () => { const t = t1.get(h) as { user_id: string }; return u1.get(t.user_id); });
const sel1 = db.prepare('SELECT 1 AS a');
bench('select 1 get', () => sel1.get());
const sel8 = db.prepare("SELECT 1 AS a, 2 AS b, 3 AS c, 4 AS d, 'x' AS e, 'y' AS f, 'z' AS g, 'w' AS h");
bench('select 8 literals get', () => sel8.get());
