// docs/api-contract.md §25: an installing account's events reach the app's webhook_url by §9's rules. Each install
// of an app with a webhook gets an endpoint of its own in the installing account (`app_install_id`, `app_id` set),
// which the business never sees: so the fan-out, the delivery worker, its retries, signing and address checks
// are §9's, unchanged. Its attempts carry the app (`app_id`), so the publisher's attempt log of an app
// (`GET /v1/apps/:id/deliveries`) reads one index whatever the number of installs.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema.alterTable('webhook_endpoints').addColumn('app_id', types.id).execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('app_install_id', types.id).execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('app_id', types.id).execute();
  // An install's endpoint, and the endpoints of an app (a change of its webhook reaches each install's).
  await sql`create unique index webhook_endpoints_app_install_idx on webhook_endpoints (app_install_id) where app_install_id is not null`.execute(
    db,
  );
  await sql`create index webhook_endpoints_app_idx on webhook_endpoints (app_id) where app_id is not null`.execute(db);
  // The app's attempt log, newest first, by status: only the attempts to apps are in it.
  await sql`create index webhook_deliveries_app_status_idx on webhook_deliveries (app_id, status, created_at, id) where app_id is not null`.execute(
    db,
  );
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_app_status_idx').execute();
  await db.schema.dropIndex('webhook_endpoints_app_idx').execute();
  await db.schema.dropIndex('webhook_endpoints_app_install_idx').execute();
  // An app's endpoints and their attempts go with the columns that made them an app's.
  await sql`delete from webhook_endpoints where app_id is not null`.execute(db);
  await db.schema.alterTable('webhook_deliveries').dropColumn('app_id').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('app_install_id').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('app_id').execute();
}
