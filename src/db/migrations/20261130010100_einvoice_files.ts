// docs/api-contract.md §31 "Frozen when sent": the e-invoice files of a sent invoice (or an issued credit note),
// stored at its first send (with the account's e-invoicing on) and answered byte for byte from then on, whatever
// later happens to its client or the business profile. One row per document and format; kept outside the
// attachments' quota. The document is named by its kind and id (an invoice or a credit note; never deleted once
// sent or issued).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('einvoice_files')
    .addColumn('document_id', types.id, (column) => column.notNull())
    .addColumn('format', 'text', (column) => column.notNull())
    .addColumn('document_type', 'text', (column) => column.notNull())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('sha256', 'text', (column) => column.notNull())
    .addColumn('content', types.blob, (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addPrimaryKeyConstraint('einvoice_files_pkey', ['document_id', 'format'])
    .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('einvoice_files').execute();
}
