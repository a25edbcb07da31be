// docs/api-contract.md §25: the operator suspends an app (`bms apps suspend`): every install of it is uninstalled
// (`suspended`), and until then (there is no undo but the database) it cannot be installed, authorized or
// given tokens. Null for every app before.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('apps').addColumn('suspended_at', columnTypes(db).timestamp).execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('apps').dropColumn('suspended_at').execute();
}
