import SqliteDatabase from 'better-sqlite3';
const c = new SqliteDatabase('/tmp/rep5-25k.sqlite', { readonly: true }); c.pragma('temp_store = memory');
const A = (c.prepare('select id from accounts order by created_at desc limit 1').get() as { id: string }).id;
const seq = (c.prepare('select max(sequence) s from ledger_entries').get() as { s: number }).s;
const D = process.argv[2] ?? '2026-08-01';
const starts = ['2026-07-02', '2026-06-02', '2026-05-03'];
const variants: Record<string, [string, unknown[]]> = {
  count: [`select count(*) from ledger_open_items where account_id = ? and span_class = 99 and opened_on <= ? and last_entry_on <= ? and last_sequence <= ? and amount <> 0`, [A, D, D, seq]],
  sumAll: [`select sum(amount) from ledger_open_items where account_id = ? and span_class = 99 and opened_on <= ? and last_entry_on <= ? and last_sequence <= ? and amount <> 0`, [A, D, D, seq]],
  current: [`select currency, client_id, kind, case when kind <> 'invoice' then 0 when coalesce(due_date, opened_on) >= ? then 0 when coalesce(due_date, opened_on) >= ? then 1 when coalesce(due_date, opened_on) >= ? then 2 when coalesce(due_date, opened_on) >= ? then 3 else 4 end as bucket, sum(amount), count(*) from ledger_open_items where account_id = ? and span_class = 99 and opened_on <= ? and last_entry_on <= ? and last_sequence <= ? and amount <> 0 group by currency, client_id, kind, bucket`, [D, ...starts, A, D, D, seq]],
  byClientCond: [`select currency, client_id, kind, sum(case when coalesce(due_date, opened_on) >= ? then amount end), sum(case when coalesce(due_date, opened_on) < ? and coalesce(due_date, opened_on) >= ? then amount end), sum(case when coalesce(due_date, opened_on) < ? and coalesce(due_date, opened_on) >= ? then amount end), sum(case when coalesce(due_date, opened_on) < ? and coalesce(due_date, opened_on) >= ? then amount end), sum(case when coalesce(due_date, opened_on) < ? then amount end), count(*) from ledger_open_items where account_id = ? and span_class = 99 and opened_on <= ? and last_entry_on <= ? and last_sequence <= ? and amount <> 0 group by currency, client_id, kind`, [D, D, starts[0], starts[0], starts[1], starts[1], starts[2], starts[2], A, D, D, seq]],
  groupClientOnly: [`select client_id, sum(amount), count(*) from ledger_open_items where account_id = ? and span_class = 99 and opened_on <= ? and last_entry_on <= ? and last_sequence <= ? and amount <> 0 group by client_id`, [A, D, D, seq]],
  unionArm99: [`select kind, item_id, client_id, currency from ledger_open_items where account_id = ? and span_class = 99 and opened_on <= ? and last_entry_on > ?`, [A, D, D]],
  offset: [`select opened_on from ledger_open_items where account_id = ? and span_class = 99 and opened_on <= ? order by opened_on limit 1 offset 4000`, [A, D]],
};
for (const [name, [text, params]] of Object.entries(variants)) {
  const st = c.prepare(text).raw(true);
  let best = Infinity; let rows = 0;
  for (let i = 0; i < 15; i++) { const t = performance.now(); rows = (st.all(params) as unknown[]).length; best = Math.min(best, performance.now() - t); }
  console.log(name.padEnd(16), best.toFixed(2), 'ms (best of 15)', rows, 'rows');
}
console.log('still-open items', c.prepare('select count(*) n from ledger_open_items where span_class = 99').get(), 'all', c.prepare('select count(*) n from ledger_open_items').get());
