// Issue 36: two indexes fewer per webhook delivery. Each row of a create's fan-out went into seven b-trees
// (the table, its primary key and five indexes); now five.
// - webhook_deliveries_endpoint_idx (endpoint_id, created_at, id) served only the attempt log of an endpoint
//   without a status filter, which webhook_deliveries_endpoint_status_idx (endpoint_id, status, created_at,
//   id) answers as well: one range per status (there are three), each in order, merged
//   (events/webhooks.repository.ts listDeliveries). Deleting an endpoint finds its attempts by that index too.
// - webhook_deliveries_event_idx (event_id, endpoint_id) and webhook_deliveries_one_pending_idx (the same
//   columns, unique where status = 'pending') held the same keys. One unique index on (event_id,
//   endpoint_id, 1 when pending else null) does both: null is distinct from null in a unique index on both
//   engines, so any number of finished attempts but one pending per (event, endpoint); and its first columns
//   find an event's attempts whatever their status (the next attempt's number, a resend, pruning, the
//   foreign key's cascade).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';

/** The expression of the third column, which the fan-out's ON CONFLICT names (webhooks.repository.ts). */
const PENDING = "(case when status = 'pending' then 1 end)";

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_endpoint_idx').execute();
  await sql`create unique index webhook_deliveries_event_attempts_idx on webhook_deliveries (event_id, endpoint_id, ${sql.raw(PENDING)})`.execute(
    db,
  );
  await db.schema.dropIndex('webhook_deliveries_one_pending_idx').execute();
  await db.schema.dropIndex('webhook_deliveries_event_idx').execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_event_idx')
    .on('webhook_deliveries')
    .columns(['event_id', 'endpoint_id'])
    .execute();
  await sql`create unique index webhook_deliveries_one_pending_idx on webhook_deliveries (event_id, endpoint_id) where status = 'pending'`.execute(
    db,
  );
  await db.schema.dropIndex('webhook_deliveries_event_attempts_idx').execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint_idx')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'created_at', 'id'])
    .execute();
}
