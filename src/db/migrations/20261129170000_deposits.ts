// docs/api-contract.md §23 "Deposits": a quote's deposit (its kind and value) and what its deposit payments hold
// less refunds; a payment names its invoice or, for a deposit, its quote: exactly one (a CHECK on both engines).
// `payments.invoice_id` loses its NOT NULL: an ALTER on PostgreSQL; on SQLite, which cannot drop a column's
// constraint, the table is rebuilt as SQLite's documentation prescribes (lang_altertable.html, "other changes"):
// foreign keys off, in one transaction a new table from the stored definition, every row copied, the old
// dropped, the new renamed, every index and trigger the old had made again, `foreign_key_check`, then keys on.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.js';
import { columnTypes } from './column-types.js';

const INVOICE_REQUIRED = /"invoice_id" text not null references "invoices" \("id"\)/;
const INVOICE_OPTIONAL = '"invoice_id" text references "invoices" ("id")';
const QUOTE_COLUMN = '"quote_id" text references "quotes" ("id")';
const ONE_DOCUMENT = 'constraint payments_one_document_check check ((invoice_id is null) <> (quote_id is null))';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  const rest = async (trx: Kysely<any>) => {
    await trx.schema.alterTable('quotes').addColumn('deposit_type', 'text').execute();
    await trx.schema.alterTable('quotes').addColumn('deposit_value', 'bigint').execute();
    await trx.schema
      .alterTable('quotes')
      .addColumn('deposit_paid_amount', 'bigint', (column) => column.notNull().defaultTo(0))
      .execute();
    // A quote's deposits, for its figures and its deduction (oldest first).
    await trx.schema
      .createIndex('payments_account_quote_idx')
      .on('payments')
      .columns(['account_id', 'quote_id', 'paid_at', 'id'])
      .execute();
  };
  if (dialectOf(db) === 'postgres') {
    // PostgreSQL runs a migration in one transaction.
    await sql`alter table payments alter column invoice_id drop not null`.execute(db);
    await db.schema
      .alterTable('payments')
      .addColumn('quote_id', types.id, (column) => column.references('quotes.id'))
      .execute();
    await sql.raw(`alter table payments add ${ONE_DOCUMENT}`).execute(db);
    await rest(db);
  } else {
    await rebuildPayments(
      db,
      (definition) => {
        if (!INVOICE_REQUIRED.test(definition)) throw new Error(`payments is not as expected: ${definition}`);
        const body = definition.replace(INVOICE_REQUIRED, INVOICE_OPTIONAL).replace(/\)\s*$/, '');
        return `${body}, ${QUOTE_COLUMN}, ${ONE_DOCUMENT})`;
      },
      rest,
    );
  }
}

// `any`: see above. Going down refuses while a deposit is stored (none is ever dropped), before any change.
export async function down(db: Kysely<any>): Promise<void> {
  const deposits = await sql<{
    count: number | string;
  }>`select count(*) as count from payments where quote_id is not null`.execute(db);
  if (Number(deposits.rows[0]?.count ?? 0) > 0) throw new Error('payments holds deposits: they would be lost');
  const quotes = async (trx: Kysely<any>) => {
    await trx.schema.alterTable('quotes').dropColumn('deposit_paid_amount').execute();
    await trx.schema.alterTable('quotes').dropColumn('deposit_value').execute();
    await trx.schema.alterTable('quotes').dropColumn('deposit_type').execute();
  };
  if (dialectOf(db) === 'postgres') {
    await db.schema.dropIndex('payments_account_quote_idx').execute();
    await sql`alter table payments drop constraint payments_one_document_check`.execute(db);
    await sql`alter table payments alter column invoice_id set not null`.execute(db);
    await db.schema.alterTable('payments').dropColumn('quote_id').execute();
    await quotes(db);
  } else {
    // The quote's index goes with the old table; the definition loses the column and the check.
    await rebuildPayments(
      db,
      (definition) =>
        definition
          .replace(`, ${QUOTE_COLUMN}, ${ONE_DOCUMENT})`, ')')
          .replace(INVOICE_OPTIONAL, '"invoice_id" text not null references "invoices" ("id")'),
      quotes,
      ['payments_account_quote_idx'],
    );
  }
}

/**
 * Rebuilds SQLite's `payments` with the definition `change` makes of the stored one, keeping every row (by the
 * columns both share), index and trigger; the tables that refer to it (refunds, applications) name it by name,
 * so their keys hold again once the new table has the old name, which `foreign_key_check` proves before commit.
 * `alongside` is the migration's other changes, in the same transaction: all or nothing.
 */
async function rebuildPayments(
  db: Kysely<any>,
  change: (definition: string) => string,
  alongside: (trx: Kysely<any>) => Promise<void>,
  leaving: readonly string[] = [],
): Promise<void> {
  const stored = await sql<{ type: string; name: string; sql: string | null }>`
    select type, name, sql from sqlite_master where tbl_name = 'payments' order by type desc, name`.execute(db);
  const table = stored.rows.find((row) => row.type === 'table');
  if (!table?.sql) throw new Error('no payments table');
  const rebuilt = change(table.sql).replace(/^CREATE TABLE "?payments"?/i, 'CREATE TABLE "payments_rebuilt"');
  // Indexes SQLite makes itself (primary key, unique columns) have no sql and come back with the table.
  const dependents = stored.rows
    .filter((row) => row.type !== 'table' && row.sql !== null && !leaving.includes(row.name))
    .map((row) => row.sql!);
  const old = await sql<{ name: string }>`select name from pragma_table_info('payments')`.execute(db);
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      await sql.raw(rebuilt).execute(trx);
      const kept = await sql<{ name: string }>`select name from pragma_table_info('payments_rebuilt')`.execute(trx);
      const shared = old.rows
        .map((row) => row.name)
        .filter((name) => kept.rows.some((row) => row.name === name))
        .map((name) => `"${name}"`)
        .join(', ');
      await sql.raw(`insert into payments_rebuilt (${shared}) select ${shared} from payments`).execute(trx);
      await sql`drop table payments`.execute(trx);
      await sql`alter table payments_rebuilt rename to payments`.execute(trx);
      for (const statement of dependents) await sql.raw(statement).execute(trx);
      await alongside(trx);
      const broken = await sql`select * from pragma_foreign_key_check`.execute(trx);
      if (broken.rows.length > 0) throw new Error(`foreign keys broken by the rebuild: ${JSON.stringify(broken.rows)}`);
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}
