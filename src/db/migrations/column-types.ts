// Column types that differ between the engines, chosen once so migrations read the same on both.
import { PostgresAdapter, type Kysely } from 'kysely';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export function columnTypes(db: Kysely<any>) {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return {
    id: postgres ? ('uuid' as const) : ('text' as const),
    timestamp: postgres ? ('timestamptz' as const) : ('text' as const),
    json: postgres ? ('jsonb' as const) : ('text' as const),
    date: postgres ? ('date' as const) : ('text' as const),
  };
}
