// Attachments (docs/api-contract.md §30): files on a client, property, service request, quote, job, visit or
// invoice. A row names its bytes by `sha256`: the store keeps them once per account at `<account id>/<sha256>`,
// written and renamed into place before the row commits, so no row is ever without its file. The account gains
// the bytes its attachments take (`attachment_bytes`, each attachment at its own size, moved in the row's
// transaction) and its quota (`max_attachment_bytes`, null: the default 5 GiB, set by `bms accounts
// set-limits --attachment-bytes N`).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .alterTable('accounts')
    .addColumn('attachment_bytes', 'bigint', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('accounts').addColumn('max_attachment_bytes', 'bigint').execute();
  await db.schema
    .createTable('attachments')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('parent_type', 'text', (column) =>
      column
        .notNull()
        .check(sql`parent_type in ('client', 'property', 'service_request', 'quote', 'job', 'visit', 'invoice')`),
    )
    .addColumn('parent_id', types.id, (column) => column.notNull())
    .addColumn('kind', 'text', (column) => column.notNull().check(sql`kind in ('upload', 'signature', 'einvoice')`))
    .addColumn('filename', 'text', (column) => column.notNull())
    .addColumn('content_type', 'text', (column) => column.notNull())
    .addColumn('size_bytes', 'bigint', (column) => column.notNull())
    .addColumn('sha256', 'text', (column) => column.notNull())
    .addColumn('visible_on_hub', 'integer', (column) => column.notNull().check(sql`visible_on_hub in (0, 1)`))
    .addColumn('caption', 'text')
    .addColumn('location_removed', 'integer', (column) => column.notNull().check(sql`location_removed in (0, 1)`))
    .addColumn('created_by', types.json, (column) => column.notNull())
    .addColumn('metadata', types.json, (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  for (const [name, columns] of [
    // The list is always of one kind of parent (parent_type is required), of one parent when parent_id is given
    // (also the hub's files and the 200 per parent), in either sort.
    ['attachments_parent_created_at_idx', ['account_id', 'parent_type', 'parent_id', 'created_at', 'id']],
    ['attachments_parent_updated_at_idx', ['account_id', 'parent_type', 'parent_id', 'updated_at', 'id']],
    ['attachments_kind_created_at_idx', ['account_id', 'parent_type', 'created_at', 'id']],
    ['attachments_kind_updated_at_idx', ['account_id', 'parent_type', 'updated_at', 'id']],
    // Whether a file is still named by a row (the sweeper).
    ['attachments_account_sha256_idx', ['account_id', 'sha256']],
  ] as const)
    await db.schema
      .createIndex(name)
      .on('attachments')
      .columns([...columns])
      .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('attachments').execute();
  await db.schema.alterTable('accounts').dropColumn('max_attachment_bytes').execute();
  await db.schema.alterTable('accounts').dropColumn('attachment_bytes').execute();
}
