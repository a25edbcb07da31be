import SqliteDatabase from 'better-sqlite3';
const c = new SqliteDatabase('/tmp/rep5-25k-exp.sqlite', { readonly: true }); c.pragma('temp_store = memory');
const A = (c.prepare('select id from accounts order by created_at desc limit 1').get() as { id: string }).id;
const seq = (c.prepare('select max(sequence) s from ledger_entries').get() as { s: number }).s;
const D = process.argv[2] ?? '2026-08-01';
const s = ['2026-07-02', '2026-06-02', '2026-05-03'];
const due = 'coalesce(due_date, opened_on)';
const cond = `sum(case when ${due} >= @d then amount else 0 end), sum(case when ${due} < @d and ${due} >= @s1 then amount else 0 end), sum(case when ${due} < @s1 and ${due} >= @s2 then amount else 0 end), sum(case when ${due} < @s2 and ${due} >= @s3 then amount else 0 end), sum(case when ${due} < @s3 then amount else 0 end), count(*)`;
const where = `account_id = @a and span_class = 99 and opened_on <= @d and last_entry_on <= @d and last_sequence <= @q and amount <> 0`;
const P = { d: D, s1: s[0], s2: s[1], s3: s[2], a: A, q: seq };
const variants: Record<string, string> = {
  current_idx_group3: `select client_id, currency, kind, ${cond} from ledger_open_items indexed by ledger_open_items_account_span_idx where ${where} group by client_id, currency, kind`,
  newidx_group3: `select client_id, currency, kind, ${cond} from ledger_open_items indexed by exp_client_first where ${where} group by client_id, currency, kind`,
  newidx_group_cck: `select currency, client_id, kind, ${cond} from ledger_open_items indexed by exp_client_first where ${where} group by currency, client_id, kind`,
  newidx_bucketcase: `select client_id, currency, kind, case when kind <> 'invoice' then 0 when ${due} >= @d then 0 when ${due} >= @s1 then 1 when ${due} >= @s2 then 2 when ${due} >= @s3 then 3 else 4 end as bucket, sum(amount), count(*) from ledger_open_items indexed by exp_client_first where ${where} group by client_id, currency, kind, bucket`,
  clientidx_group3: `select client_id, currency, kind, ${cond} from ledger_open_items indexed by ledger_open_items_account_client_span_idx where ${where} group by client_id, currency, kind`,
  newidx_count: `select count(*) from ledger_open_items indexed by exp_client_first where ${where} and @s1 is not null and @s2 is not null and @s3 is not null`,
};
for (const [name, text] of Object.entries(variants)) {
  const st = c.prepare(text).raw(true);
  const plan = (c.prepare('explain query plan ' + text).all(P) as { detail: string }[]).map((x) => x.detail).join('; ');
  let best = Infinity; let rows = 0;
  for (let i = 0; i < 15; i++) { const t = performance.now(); rows = (st.all(P) as unknown[]).length; best = Math.min(best, performance.now() - t); }
  console.log(name.padEnd(20), best.toFixed(2), 'ms', rows, 'rows |', plan);
}
