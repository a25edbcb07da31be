// docs/api-contract.md §29, a job's costing at 10,000 entries: each stopped entry keeps its worked seconds
// (`duration_seconds`: ended_at − started_at, rounded to the second, less its break, at least 0; null while
// running), so the costing sums its entries' figures in the database by the job's index instead of reading
// every row. Existing entries get theirs here; time-entries.repository.ts writes it from then on.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';

/** The same as figures.ts's durationSeconds, written out: a migration does not follow later code. */
function workedSeconds(startedAt: string, endedAt: string, breakMinutes: number): number {
  const span = Math.round((Date.parse(endedAt) - Date.parse(startedAt)) / 1000);
  return Math.max(0, span - breakMinutes * 60);
}

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('time_entries').addColumn('duration_seconds', 'bigint').execute();
  let after: string | undefined;
  for (;;) {
    let query = db
      .selectFrom('time_entries')
      .select(['id', 'started_at', 'ended_at', 'break_minutes'])
      .where('ended_at', 'is not', null);
    if (after !== undefined) query = query.where('id', '>', after);
    const rows = await query.orderBy('id').limit(500).execute();
    for (const row of rows)
      await db
        .updateTable('time_entries')
        .set({ duration_seconds: workedSeconds(row.started_at, row.ended_at, Number(row.break_minutes)) })
        .where('id', '=', row.id)
        .execute();
    if (rows.length < 500) break;
    after = String(rows.at(-1)?.id);
  }
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('time_entries').dropColumn('duration_seconds').execute();
}
