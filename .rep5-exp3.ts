import SqliteDatabase from 'better-sqlite3';
const c = new SqliteDatabase('/tmp/rep5-25k-new.sqlite', { readonly: true }); c.pragma('temp_store = memory');
const A = (c.prepare('select id from accounts order by created_at desc limit 1').get() as { id: string }).id;
const seq = (c.prepare('select max(sequence) s from ledger_entries').get() as { s: number }).s;
const D = process.argv[2] ?? '2026-08-01';
const due = 'coalesce(due_date, opened_on)';
const where = `account_id = @a and span_class = 99 and opened_on <= @d and last_entry_on <= @d and last_sequence <= @q and amount <> 0`;
const P = { d: D, s1: '2026-07-02', s2: '2026-06-02', s3: '2026-05-03', a: A, q: seq };
const variants: Record<string, string> = {
  conditional: `select client_id, currency, kind, sum(case when ${due} >= @d then amount else 0 end), sum(case when ${due} < @d and ${due} >= @s1 then amount else 0 end), sum(case when ${due} < @s1 and ${due} >= @s2 then amount else 0 end), sum(case when ${due} < @s2 and ${due} >= @s3 then amount else 0 end), sum(case when ${due} < @s3 then amount else 0 end), count(*) from ledger_open_items where ${where} group by client_id, currency, kind`,
  cumulative: `select client_id, currency, kind, sum(case when ${due} >= @d then amount else 0 end), sum(case when ${due} >= @s1 then amount else 0 end), sum(case when ${due} >= @s2 then amount else 0 end), sum(case when ${due} >= @s3 then amount else 0 end), sum(amount), count(*) from ledger_open_items where ${where} group by client_id, currency, kind`,
  cumulativeIif: `select client_id, currency, kind, sum(iif(${due} >= @d, amount, 0)), sum(iif(${due} >= @s1, amount, 0)), sum(iif(${due} >= @s2, amount, 0)), sum(iif(${due} >= @s3, amount, 0)), sum(amount), count(*) from ledger_open_items where ${where} group by client_id, currency, kind`,
  totalOnly: `select client_id, currency, kind, sum(amount), count(*), @s1, @s2, @s3 from ledger_open_items where ${where} group by client_id, currency, kind`,
};
for (let round = 0; round < 2; round++)
for (const [name, text] of Object.entries(variants)) {
  const st = c.prepare(text).raw(true);
  let best = Infinity; let rows = 0;
  for (let i = 0; i < 20; i++) { const t = performance.now(); rows = (st.all(P) as unknown[]).length; best = Math.min(best, performance.now() - t); }
  console.log(name.padEnd(16), best.toFixed(2), 'ms', rows, 'rows');
}
