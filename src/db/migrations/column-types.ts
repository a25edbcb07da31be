// Column types that differ between the engines, chosen once so migrations read the same on both.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';
import { dialectOf } from '../database.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export function columnTypes(db: Kysely<any>) {
  const postgres = dialectOf(db) === 'postgres';
  return {
    id: postgres ? ('uuid' as const) : ('text' as const),
    timestamp: postgres ? ('timestamptz' as const) : ('text' as const),
    json: postgres ? ('jsonb' as const) : ('text' as const),
    date: postgres ? ('date' as const) : ('text' as const),
    blob: postgres ? ('bytea' as const) : ('blob' as const),
  };
}
