// A payment as the API shows it (docs/api-contract.md §11, §22, §23): its refunds and applications, the 20 most
// recent of each with their counts, read in one query for a page of payments.
import { type Executor, fromJson } from '../../db/index.js';
import type { ApplicationRow, PaymentRefundRow, PaymentRow } from '../../db/types.js';
import { requireRow } from '../shared/index.js';
import * as applicationsRepository from './applications.repository.js';
import * as repository from './payments.repository.js';
import type { Payment, PaymentMethod } from './payments.schemas.js';

/** A payment row with its 20 most recent refunds and applications and how many it has (docs/api-contract.md §21). */
export type PaymentRecord = PaymentRow & {
  refunds: PaymentRefundRow[];
  refunds_count: number;
  applications?: ApplicationRow[];
  applications_count?: number;
};

export function presentPayment(row: PaymentRecord): Payment {
  return {
    id: row.id,
    object: 'payment',
    invoice_id: row.invoice_id,
    quote_id: row.quote_id,
    client_id: row.client_id,
    amount: Number(row.amount),
    amount_refunded: Number(row.amount_refunded),
    amount_applied: Number(row.amount_applied),
    amount_unapplied: Number(row.amount) - Number(row.amount_refunded) - Number(row.amount_applied),
    overpayment: row.overpayment as 'reject' | 'credit',
    applications: (row.applications ?? []).map((application) => ({
      id: application.id,
      invoice_id: application.invoice_id,
      amount: Number(application.amount),
      applied_on: application.applied_on,
      created_at: application.created_at,
    })),
    applications_count: row.applications_count ?? 0,
    currency: row.currency,
    method: row.method as PaymentMethod,
    reference: row.reference,
    paid_at: row.paid_at,
    notes: row.notes,
    refunds: row.refunds.map((refund) => ({
      id: refund.id,
      amount: Number(refund.amount),
      reason: refund.reason,
      created_at: refund.created_at,
    })),
    refunds_count: row.refunds_count,
    metadata: fromJson(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Payments with their most recent refunds, in one query for all of them. */
export async function withRefunds(db: Executor, accountId: string, rows: PaymentRow[]): Promise<PaymentRecord[]> {
  const ids = rows.map((row) => row.id);
  const { refunds, counts } = await repository.listRecentRefundsOfPayments(db, accountId, ids);
  const applied = await applicationsRepository.listRecentApplications(db, accountId, 'payment_id', ids);
  return rows.map((row) => {
    const record = paymentRecord(
      row,
      refunds.filter((refund) => refund.payment_id === row.id),
      counts.get(row.id) ?? 0,
    );
    record.applications = applied.applications.filter((application) => application.payment_id === row.id);
    record.applications_count = applied.counts.get(row.id) ?? 0;
    return record;
  });
}

/** The row made into its record in place, not copied with a spread (slow on Node 20: see invoiceRecord). */
export function paymentRecord(row: PaymentRow, refunds: PaymentRefundRow[], refundsCount: number): PaymentRecord {
  const record = row as PaymentRecord;
  record.refunds = refunds;
  record.refunds_count = refundsCount;
  return record;
}

export async function getRecord(db: Executor, accountId: string, id: string, lock = false): Promise<PaymentRecord> {
  const row = await requireRow('payment', id, (found) => repository.findPayment(db, accountId, found, lock));
  return (await withRefunds(db, accountId, [row]))[0]!;
}
