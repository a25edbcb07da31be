// Signatures of hub approval (docs/api-contract.md §30): each approval on the hub records who signed, when, from
// where, and the SHA-256 of the quote's signed content (its RFC 8785 canonical JSON, kept as `document` so that
// the bytes signed can be answered after the quote changes). A quote keeps its latest signature as answered
// (`signature`, JSON), so that presenting a quote reads its own row only; moving it back to draft invalidates it.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema.alterTable('quotes').addColumn('signature', types.json).execute();
  await db.schema
    .createTable('quote_signatures')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('quote_id', types.id, (column) => column.notNull())
    .addColumn('signer_name', 'text', (column) => column.notNull())
    .addColumn('signed_at', types.timestamp, (column) => column.notNull())
    .addColumn('ip_address', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('image_attachment_id', types.id)
    .addColumn('document_sha256', 'text', (column) => column.notNull())
    .addColumn('document', 'text', (column) => column.notNull())
    .addColumn('invalidated_at', types.timestamp)
    .addColumn('invalidated_reason', 'text')
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('quote_signatures_quote_idx')
    .on('quote_signatures')
    .columns(['account_id', 'quote_id', 'signed_at', 'id'])
    .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('quote_signatures').execute();
  await db.schema.alterTable('quotes').dropColumn('signature').execute();
}
