// The credit note as the API shows it: its row, its live applications and refunds, and what they hold.
import { type Executor, fromJson } from '../../db/index.js';
import type { CreditNoteRow } from '../../db/types.js';
import type { Context } from '../../kernel/context.js';
import { type DeliveryStatus, presentHostedUrl, presentPriced } from '../documents/index.js';
import { listRecentApplications } from '../invoices/index.js';
import { requireRow } from '../shared/index.js';
import type { CreditNoteStatus } from './credit-notes.lifecycle.js';
import * as repository from './credit-notes.repository.js';
import type { CreditNote } from './credit-notes.schemas.js';

/** A note with its live applications, refunds and what its applications hold. */
export type CreditNoteRecord = CreditNoteRow & {
  applications: Awaited<ReturnType<typeof listRecentApplications>>['applications'];
  applications_count: number;
  refunds: Awaited<ReturnType<typeof repository.listRecentRefunds>>['refunds'];
  refunds_count: number;
  held: number;
};

export async function withMoney(db: Executor, accountId: string, rows: CreditNoteRow[]): Promise<CreditNoteRecord[]> {
  const ids = rows.map((row) => row.id);
  const applied = await listRecentApplications(db, accountId, 'credit_note_id', ids);
  const { refunds, counts } = await repository.listRecentRefunds(db, accountId, ids);
  const held = await repository.heldByNotes(db, accountId, ids);
  return rows.map((row) => ({
    ...row,
    applications: applied.applications.filter((application) => application.credit_note_id === row.id),
    applications_count: applied.counts.get(row.id) ?? 0,
    refunds: refunds.filter((refund) => refund.credit_note_id === row.id),
    refunds_count: counts.get(row.id) ?? 0,
    held: held.get(row.id) ?? 0,
  }));
}

export async function getCreditNoteRecord(ctx: Context, id: string, lock = false): Promise<CreditNoteRecord> {
  const row = await requireRow('credit note', id, (found) =>
    repository.findCreditNote(ctx.db, ctx.accountId, found, lock),
  );
  return (await withMoney(ctx.db, ctx.accountId, [row]))[0]!;
}

export function presentCreditNote(row: CreditNoteRecord): CreditNote {
  const priced = presentPriced(row);
  const refunded = Number(row.amount_refunded);
  return {
    id: row.id,
    object: 'credit_note',
    external_id: row.external_id,
    number: row.number,
    client_id: row.client_id,
    invoice_id: row.invoice_id,
    property_id: row.property_id,
    reason: row.reason,
    amount: row.amount === null ? null : Number(row.amount),
    tax_rate_ids: row.tax_rate_ids === null ? null : fromJson<string[]>(row.tax_rate_ids),
    line_items: priced.line_items,
    currency: priced.currency,
    prices_include_tax: priced.prices_include_tax,
    rounding: priced.rounding,
    discount: priced.discount,
    discount_amount: priced.discount_amount,
    subtotal_amount: priced.subtotal_amount,
    tax_amount: priced.tax_amount,
    total_amount: priced.total_amount,
    tax_breakdown: priced.tax_breakdown,
    issue_date: row.issue_date,
    apply_on_issue: Number(row.apply_on_issue) === 1,
    amount_applied: row.held,
    amount_refunded: refunded,
    amount_remaining: row.status === 'issued' ? priced.total_amount - row.held - refunded : 0,
    applications: row.applications.map((application) => ({
      id: application.id,
      invoice_id: application.invoice_id,
      amount: Number(application.amount),
      applied_on: application.applied_on,
      created_at: application.created_at,
    })),
    applications_count: row.applications_count,
    refunds: row.refunds.map((refund) => ({
      id: refund.id,
      amount: Number(refund.amount),
      method: refund.method as CreditNote['refunds'][number]['method'],
      reference: refund.reference,
      reason: refund.reason,
      refunded_at: refund.refunded_at,
      created_at: refund.created_at,
    })),
    refunds_count: row.refunds_count,
    notes: row.notes,
    status: row.status as CreditNoteStatus,
    issued_at: row.issued_at,
    voided_at: row.voided_at,
    hosted_url: presentHostedUrl(row),
    delivery_status: row.delivery_status as DeliveryStatus | null,
    metadata: fromJson(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
