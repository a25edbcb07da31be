// The client's balance and its ledger (docs/api-contract.md §22): `applications` (money of a payment or a
// credit note held by an invoice), the append-only `ledger_entries` with a gapless per-account `sequence`
// (its counter is the account's `ledger` row of `account_counters`), invoices' `amount_credited`, payments'
// `amount_applied` and `overpayment`. Existing invoices, payments and refunds become entries (backfill below).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { localDate } from '../../core/time.js';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .alterTable('invoices')
    .addColumn('amount_credited', 'bigint', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('payments')
    .addColumn('amount_applied', 'bigint', (column) => column.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('payments')
    .addColumn('overpayment', 'text', (column) => column.notNull().defaultTo('reject'))
    .execute();

  await db.schema
    .createTable('applications')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('client_id', types.id, (column) => column.notNull().references('clients.id'))
    .addColumn('currency', 'text', (column) => column.notNull())
    .addColumn('source_type', 'text', (column) => column.notNull())
    .addColumn('payment_id', types.id, (column) => column.references('payments.id'))
    // No foreign key: credit notes come in a later migration, which adds none either (a note is never deleted once issued).
    .addColumn('credit_note_id', types.id)
    .addColumn('invoice_id', types.id, (column) => column.notNull().references('invoices.id'))
    .addColumn('amount', 'bigint', (column) => column.notNull())
    .addColumn('applied_on', types.date, (column) => column.notNull())
    .addColumn('released_at', types.timestamp)
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  for (const column of ['invoice_id', 'payment_id', 'credit_note_id']) {
    await db.schema
      .createIndex(`applications_account_${column}_idx`)
      .on('applications')
      .columns(['account_id', column, 'created_at', 'id'])
      .execute();
  }

  await db.schema
    .createTable('ledger_entries')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('sequence', 'bigint', (column) => column.notNull())
    .addColumn('client_id', types.id, (column) => column.notNull())
    .addColumn('currency', 'text', (column) => column.notNull())
    .addColumn('type', 'text', (column) => column.notNull())
    .addColumn('effective_date', types.date, (column) => column.notNull())
    .addColumn('amount', 'bigint', (column) => column.notNull())
    .addColumn('applied_amount', 'bigint', (column) => column.notNull())
    .addColumn('balance_amount', 'bigint', (column) => column.notNull())
    .addColumn('invoice_id', types.id)
    .addColumn('credit_note_id', types.id)
    .addColumn('payment_id', types.id)
    .addColumn('refund_id', types.id)
    .addColumn('application_id', types.id)
    .addColumn('due_date', types.date)
    .addColumn('net_amount', 'bigint')
    .addColumn('tax_amount', 'bigint')
    .addColumn('cost_amount', 'bigint')
    .addColumn('taxes', types.json)
    .addColumn('actor', types.json, (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('ledger_entries_account_sequence_idx')
    .on('ledger_entries')
    .columns(['account_id', 'sequence'])
    .unique()
    .execute();
  // The client's running balance is read from the last entry of (client, currency); the filters by document.
  await db.schema
    .createIndex('ledger_entries_account_client_idx')
    .on('ledger_entries')
    .columns(['account_id', 'client_id', 'currency', 'sequence'])
    .execute();
  for (const column of ['invoice_id', 'credit_note_id', 'payment_id', 'type']) {
    await db.schema
      .createIndex(`ledger_entries_account_${column}_idx`)
      .on('ledger_entries')
      .columns(['account_id', column, 'sequence'])
      .execute();
  }
  // The list's other sort, ending in id for the keyset tie-break.
  await db.schema
    .createIndex('ledger_entries_account_created_at_idx')
    .on('ledger_entries')
    .columns(['account_id', 'created_at', 'id'])
    .execute();

  const accounts = await db.selectFrom('accounts').select(['id', 'timezone']).orderBy('id').execute();
  for (const account of accounts) await backfillAccount(db, account.id, account.timezone ?? 'UTC');
}

type Entry = Record<string, unknown>;
const SYSTEM_ACTOR = JSON.stringify({ type: 'system', id: null });

/**
 * One account's invoices, payments and refunds as the entries they would have posted, in the order they
 * happened: an invoice issued when sent, a payment received and applied to its invoice, a refund taken back
 * from the application, a void reversing the total and releasing the payments' applications (contract §22:
 * a void invoice owes nothing, so money it held becomes the client's credit).
 */
async function backfillAccount(db: Kysely<any>, accountId: string, timezone: string): Promise<void> {
  const invoices = await db
    .selectFrom('invoices')
    .select([
      'id',
      'client_id',
      'currency',
      'status',
      'subtotal_amount',
      'tax_amount',
      'total_amount',
      'tax_breakdown',
      'issue_date',
      'due_date',
      'sent_at',
      'voided_at',
      'created_at',
      'updated_at',
    ])
    .where('account_id', '=', accountId)
    .where('status', '!=', 'draft')
    .execute();
  if (invoices.length === 0) return;
  const payments = await db
    .selectFrom('payments')
    .select(['id', 'invoice_id', 'amount', 'paid_at', 'created_at'])
    .where('account_id', '=', accountId)
    .execute();
  const refunds = await db
    .selectFrom('payment_refunds')
    .select(['id', 'payment_id', 'amount', 'created_at'])
    .where('account_id', '=', accountId)
    .execute();
  const invoiceById = new Map(invoices.map((invoice) => [invoice.id, invoice]));
  const paymentById = new Map(payments.map((payment) => [payment.id, payment]));
  const at = (value: unknown) => (value instanceof Date ? value.toISOString() : String(value));
  const day = (value: unknown) => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value));
  const happenings: { at: string; order: number; id: string; run: () => void }[] = [];
  const entries: Entry[] = [];
  const balances = new Map<string, number>();
  const applied = new Map<string, number>();
  const refunded = new Map<string, number>();
  const applicationOf = new Map<string, { id: string; created_at: string; released_at: string | null }>();
  const post = (invoice: (typeof invoices)[number], when: string, entry: Entry) => {
    const key = `${invoice.client_id} ${invoice.currency}`;
    const balance = (balances.get(key) ?? 0) + Number(entry.amount ?? 0);
    balances.set(key, balance);
    entries.push({
      id: randomUUID(),
      account_id: accountId,
      sequence: entries.length + 1,
      client_id: invoice.client_id,
      currency: invoice.currency,
      amount: 0,
      applied_amount: 0,
      balance_amount: balance,
      invoice_id: invoice.id,
      credit_note_id: null,
      payment_id: null,
      refund_id: null,
      application_id: null,
      due_date: null,
      net_amount: null,
      tax_amount: null,
      cost_amount: null,
      taxes: null,
      actor: SYSTEM_ACTOR,
      created_at: when,
      ...entry,
    });
  };
  for (const invoice of invoices) {
    const sentAt = at(invoice.sent_at ?? invoice.created_at);
    happenings.push({
      at: sentAt,
      order: 0,
      id: invoice.id,
      run: () => {
        const breakdown = invoice.tax_breakdown
          ? ((typeof invoice.tax_breakdown === 'string'
              ? JSON.parse(invoice.tax_breakdown)
              : invoice.tax_breakdown) as Record<string, unknown>[])
          : [];
        post(invoice, sentAt, {
          type: 'invoice_issued',
          effective_date: invoice.issue_date ? day(invoice.issue_date) : localDate(sentAt, timezone),
          amount: Number(invoice.total_amount),
          due_date: invoice.due_date ? day(invoice.due_date) : null,
          net_amount: Number(invoice.subtotal_amount),
          tax_amount: Number(invoice.tax_amount),
          taxes: JSON.stringify(
            breakdown.map((row) => ({
              tax_rate_id: row.tax_rate_id ?? null,
              name: row.name ?? null,
              percentage: row.percentage ?? null,
              taxable_amount: Number(row.taxable_amount ?? 0),
              tax_amount: Number(row.tax_amount ?? 0),
            })),
          ),
        });
      },
    });
    if (invoice.status === 'void') {
      const voidedAt = at(invoice.voided_at ?? invoice.updated_at);
      happenings.push({
        at: voidedAt,
        order: 3,
        id: invoice.id,
        run: () => {
          post(invoice, voidedAt, {
            type: 'invoice_voided',
            effective_date: localDate(voidedAt, timezone),
            amount: -Number(invoice.total_amount),
          });
          for (const payment of payments) {
            const held = applied.get(payment.id) ?? 0;
            if (payment.invoice_id !== invoice.id || held === 0) continue;
            const application = applicationOf.get(payment.id)!;
            post(invoice, voidedAt, {
              type: 'unapplied',
              effective_date: localDate(voidedAt, timezone),
              applied_amount: -held,
              payment_id: payment.id,
              application_id: application.id,
            });
            applied.set(payment.id, 0);
            application.released_at = voidedAt;
          }
        },
      });
    }
  }
  for (const payment of payments) {
    const invoice = invoiceById.get(payment.invoice_id);
    if (!invoice) continue;
    const createdAt = at(payment.created_at);
    happenings.push({
      at: createdAt,
      order: 1,
      id: payment.id,
      run: () => {
        const paidOn = localDate(at(payment.paid_at), timezone);
        post(invoice, createdAt, {
          type: 'payment_received',
          effective_date: paidOn,
          amount: -Number(payment.amount),
          payment_id: payment.id,
        });
        const application = { id: randomUUID(), created_at: createdAt, released_at: null as string | null };
        applicationOf.set(payment.id, application);
        const issued = invoice.issue_date ? day(invoice.issue_date) : paidOn;
        post(invoice, createdAt, {
          type: 'applied',
          effective_date: paidOn > issued ? paidOn : issued,
          applied_amount: Number(payment.amount),
          payment_id: payment.id,
          application_id: application.id,
        });
        applied.set(payment.id, Number(payment.amount));
      },
    });
  }
  for (const refund of refunds) {
    const payment = paymentById.get(refund.payment_id);
    const invoice = payment && invoiceById.get(payment.invoice_id);
    if (!payment || !invoice) continue;
    const createdAt = at(refund.created_at);
    happenings.push({
      at: createdAt,
      order: 2,
      id: refund.id,
      run: () => {
        const amount = Number(refund.amount);
        const held = applied.get(payment.id) ?? 0;
        const unapplied = Number(payment.amount) - (refunded.get(payment.id) ?? 0) - held;
        const taken = Math.min(held, Math.max(0, amount - unapplied));
        const onDay = localDate(createdAt, timezone);
        if (taken > 0) {
          const application = applicationOf.get(payment.id)!;
          post(invoice, createdAt, {
            type: 'unapplied',
            effective_date: onDay,
            applied_amount: -taken,
            payment_id: payment.id,
            application_id: application.id,
          });
          applied.set(payment.id, held - taken);
          if (held - taken === 0) application.released_at = createdAt;
        }
        refunded.set(payment.id, (refunded.get(payment.id) ?? 0) + amount);
        post(invoice, createdAt, {
          type: 'payment_refunded',
          effective_date: onDay,
          amount,
          payment_id: payment.id,
          refund_id: refund.id,
        });
      },
    });
  }
  happenings.sort((a, b) =>
    a.at < b.at ? -1 : a.at > b.at ? 1 : a.order - b.order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  for (const happening of happenings) happening.run();

  const applications = [...applicationOf].map(([paymentId, application]) => {
    const payment = paymentById.get(paymentId)!;
    const invoice = invoiceById.get(payment.invoice_id)!;
    const firstApplied = entries.find((entry) => entry.application_id === application.id && entry.type === 'applied');
    return {
      id: application.id,
      account_id: accountId,
      client_id: invoice.client_id,
      currency: invoice.currency,
      source_type: 'payment',
      payment_id: paymentId,
      credit_note_id: null,
      invoice_id: invoice.id,
      amount: applied.get(paymentId) ?? 0,
      applied_on: firstApplied?.effective_date,
      released_at: application.released_at,
      created_at: application.created_at,
      updated_at: application.released_at ?? application.created_at,
    };
  });
  for (let start = 0; start < applications.length; start += 200)
    await db
      .insertInto('applications')
      .values(applications.slice(start, start + 200))
      .execute();
  for (let start = 0; start < entries.length; start += 200)
    await db
      .insertInto('ledger_entries')
      .values(entries.slice(start, start + 200))
      .execute();
  for (const [paymentId, amount] of applied)
    if (amount > 0)
      await db.updateTable('payments').set({ amount_applied: amount }).where('id', '=', paymentId).execute();
  if (entries.length > 0)
    await db
      .insertInto('account_counters')
      .values({ account_id: accountId, name: 'ledger', value: entries.length })
      .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('account_counters').where('name', '=', 'ledger').execute();
  await db.schema.dropTable('ledger_entries').execute();
  await db.schema.dropTable('applications').execute();
  await db.schema.alterTable('payments').dropColumn('overpayment').execute();
  await db.schema.alterTable('payments').dropColumn('amount_applied').execute();
  await db.schema.alterTable('invoices').dropColumn('amount_credited').execute();
}
