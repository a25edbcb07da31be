// docs/api-contract.md §25: an app has a logo (`PUT`/`DELETE /v1/apps/:id/logo`, as the account's, §10), which
// the consent page shows. Kept beside the app as the account's is beside the account; the app keeps the image's
// fingerprint (`logo_sha256`, null without one), so answering `has_logo` reads no image.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('app_logos')
    .addColumn('app_id', types.id, (column) => column.primaryKey().references('apps.id'))
    .addColumn('content_type', 'text', (column) => column.notNull())
    .addColumn('data', types.blob, (column) => column.notNull())
    .addColumn('sha256', 'text', (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .execute();
  await db.schema.alterTable('apps').addColumn('logo_sha256', 'text').execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('apps').dropColumn('logo_sha256').execute();
  await db.schema.dropTable('app_logos').execute();
}
