import fs from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
const [file, qfile] = process.argv.slice(2) as [string, string];
const queries = JSON.parse(fs.readFileSync(qfile, 'utf8')) as { sql: string; parameters: unknown[] }[];
const c = new SqliteDatabase(file, { readonly: true }); c.pragma('temp_store = memory');
const shapes = new Map<string, { n: number; ms: number; rows: number; plan: string }>();
for (let round = 0; round < 6; round++) for (const q of queries) {
  if (!/^select/.test(q.sql)) continue;
  const st = c.prepare(q.sql).raw(true);
  const t = performance.now(); const rows = st.all(q.parameters) as unknown[]; const ms = performance.now() - t;
  if (round < 1) continue;
  const shape = q.sql.replace(/\?(, \?)*/g, '?').slice(0, 200).replace(/"(\w+)"/g, "$1").replace(/select kind, item_id, client_id, currency from ledger_open_items where /, "keys where ").slice(0,110);
  const f = shapes.get(shape) ?? { n: 0, ms: 0, rows: 0, plan: (c.prepare('explain query plan ' + q.sql).all(q.parameters) as { detail: string }[]).map((s) => s.detail).filter((d, i, a) => a.indexOf(d) === i).join('; ').slice(0, 140) };
  f.n++; f.ms += ms; f.rows += rows.length; shapes.set(shape, f);
}
let total = 0;
for (const [s, f] of [...shapes].sort((a, b) => b[1].ms - a[1].ms)) { total += f.ms / 5; console.log((f.ms / 5).toFixed(2).padStart(7), 'ms', String(f.n / 5).padStart(4), 'runs', String(f.rows / 5).padStart(6), 'rows |', s, '|', f.plan); }
console.log('total per report', total.toFixed(2), 'ms');
