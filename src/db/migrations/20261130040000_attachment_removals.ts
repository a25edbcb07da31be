// Files to remove once their attachments' delete has committed (docs/api-contract.md §30: a parent's delete
// deletes its attachments): the delete queues `<account id>/<sha256>` in its own transaction, and the sweeper
// removes the file once no row names it, rather than 24 hours later as an orphan.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('attachment_removals')
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('sha256', 'text', (column) => column.notNull())
    .addColumn('queued_at', types.timestamp, (column) => column.notNull())
    .addPrimaryKeyConstraint('attachment_removals_pk', ['account_id', 'sha256'])
    .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('attachment_removals').execute();
}
