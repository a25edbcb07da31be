// Recurring invoice rules (docs/api-contract.md §23, §32): a template names a client (and optionally a property
// and a job of theirs), the invoice it makes and a rule of dates in the account's zone. Changes apply to the
// occurrences not yet made; made invoices never change. Skip and unskip edit the rule's exdates; pause takes local
// dates out (inclusive), resume puts the template back from now; DELETE ends it (still readable). Making the
// invoices is making.ts's.
import { Temporal } from '@js-temporal/polyfill';
import { AppError, fieldError, invalidState, type Precondition, validationError } from '../../core/errors.js';
import { fromJson, mapPage, type Page, pageRequest, toPage } from '../../db/index.js';
import type { RecurringInvoiceRow } from '../../db/types.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import {
  DEFAULT_MAX_RECURRING_INVOICES,
  DEFAULT_PAYMENT_TERMS_DAYS,
  findAccount,
  findAccountTimezone,
} from '../accounts/index.js';
import { requireClientReference } from '../clients/index.js';
import { localToday, parseStatusFilter, withoutStoring } from '../documents/index.js';
import { previousAttributes, recordEvent } from '../events/index.js';
import { createInvoice } from '../invoices/index.js';
import { requireJobReference } from '../jobs/index.js';
import { propertyForNewDocument } from '../properties/index.js';
import { guardExternalId, requireRow } from '../shared/index.js';
import { parseRecurrence, type Recurrence, type RecurrenceInput } from '../visit-schedules/index.js';
import { newId } from '../../core/deps.js';
import {
  addDays,
  datesBetween,
  invoiceInput,
  readingOf,
  ruleOf,
  runAt,
  settledColumns,
  statusOf,
} from './occurrences.js';
import { presentRecurringInvoice } from './recurring-invoices.presenter.js';
import * as repository from './recurring-invoices.repository.js';
import {
  type CreateRecurringInvoiceInput,
  type InvoiceTemplate,
  type InvoiceTemplateInputType,
  type ListRecurringInvoicesInput,
  type Occurrence,
  RECURRING_STATUSES,
  type RecurringInvoice,
  type UpdateRecurringInvoiceInput,
} from './recurring-invoices.schemas.js';

const MAX_WINDOW_DAYS = 366;
const MAX_EXDATES = 1000;

/** A 422 on `field` unless `value` is a date of the calendar (the schema checked its form only). */
function checkDate(field: string, value: string | null | undefined): void {
  if (value === null || value === undefined) return;
  let real = !value.startsWith('0000');
  try {
    Temporal.PlainDate.from(value, { overflow: 'reject' });
  } catch {
    real = false;
  }
  if (!real) throw fieldError(field, `'${value}' is not a date of the calendar (YYYY-MM-DD, years 0001 to 9999)`);
}

const getRow = (ctx: Context, id: string, lock = false): Promise<RecurringInvoiceRow> =>
  requireRow('recurring invoice', id, (found) => repository.findRecurringInvoice(ctx.db, ctx.accountId, found, lock));

export async function getRecurringInvoice(ctx: Context, id: string): Promise<RecurringInvoice> {
  return presentRecurringInvoice(ctx, await getRow(ctx, id));
}

export async function listRecurringInvoices(
  ctx: Context,
  query: ListRecurringInvoicesInput,
): Promise<Page<RecurringInvoice>> {
  const page = pageRequest(query, repository.RECURRING_SORTS);
  const { rows, resumeAfter } = await repository.listRecurringInvoices(
    ctx.db,
    ctx.accountId,
    { ...query, statuses: parseStatusFilter(query.status, RECURRING_STATUSES) },
    page,
  );
  const rowsPage = toPage(rows, page, resumeAfter);
  const zone = await findAccountTimezone(ctx.db, ctx.accountId);
  const items: RecurringInvoice[] = [];
  for (const row of rowsPage.items) items.push(await presentRecurringInvoice(ctx, row, zone));
  return mapPage(rowsPage, items);
}

/** The rule of a body: §18's forms without time and timezone (dates, exdates too, in the account's zone). */
function readRule(input: RecurrenceInput): Recurrence {
  return parseRecurrence({ ...input, time: null, timezone: 'UTC' }, { defaultTimeZone: 'UTC', allDay: true });
}

/** The template's invoice: the body's fields over `base` (line_items replaces the whole list), with defaults. */
async function readInvoice(
  ctx: Context,
  input: InvoiceTemplateInputType | undefined,
  base: InvoiceTemplate | undefined,
): Promise<InvoiceTemplate> {
  if (base === undefined && input?.line_items === undefined)
    throw fieldError('invoice.line_items', 'is required: the lines each invoice gets (1 to 200)');
  const account = base === undefined ? await findAccount(ctx.db, ctx.accountId) : undefined;
  const pick = <K extends keyof InvoiceTemplate>(name: K, fallback: InvoiceTemplate[K]): InvoiceTemplate[K] => {
    const sent = input?.[name as keyof InvoiceTemplateInputType];
    return (sent !== undefined ? sent : (base?.[name] ?? fallback)) as InvoiceTemplate[K];
  };
  return {
    line_items: pick('line_items', []),
    currency: pick('currency', account?.currency ?? 'USD'),
    notes: pick('notes', null),
    discount: pick('discount', null),
    prices_include_tax: pick('prices_include_tax', null),
    rounding: pick('rounding', null),
    payment_terms_days: pick('payment_terms_days', Number(account?.payment_terms_days ?? DEFAULT_PAYMENT_TERMS_DAYS)),
    reminders_enabled: pick('reminders_enabled', true),
    metadata: pick('metadata', {}),
  };
}

/** The fields of the template's invoice a refusal names under `invoice.`. */
const INVOICE_FIELDS = /^(line_items|currency|notes|discount|prices_include_tax|rounding|metadata|due_date|issue_date)/;

/**
 * The client, property and job checked as a new invoice checks them, and, outside a transaction already open (a
 * request with an Idempotency-Key runs in one), the invoice a run would make priced once without storing it: an
 * unknown product or an inactive rate is a 422 now, under `invoice.`, not a last_error later.
 */
async function checkTemplate(ctx: Context, row: RecurringInvoiceRow): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    await requireClientReference(tx, row.client_id);
    if (row.job_id !== null) {
      const job = await requireJobReference(tx, row.job_id);
      if (job.client_id !== row.client_id) throw fieldError('job_id', 'belongs to another client');
    }
    await propertyForNewDocument(tx, row.client_id, row.property_id, null);
  });
  if (ctx.db.isTransaction) return;
  const zone = await findAccountTimezone(ctx.db, ctx.accountId);
  try {
    await withoutStoring(ctx, (tx) => createInvoice(tx, invoiceInput(row, localToday(ctx.clock.now(), zone))));
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'VALIDATION_ERROR' || !error.details) throw error;
    throw validationError(
      error.details.map((detail) => ({
        ...detail,
        field: INVOICE_FIELDS.test(detail.field) ? `invoice.${detail.field}` : detail.field,
      })),
      error.message,
    );
  }
}

async function assertRoom(tx: Context): Promise<void> {
  const limit = (await repository.findLimit(tx.db, tx.accountId)) ?? DEFAULT_MAX_RECURRING_INVOICES;
  if ((await repository.countOpen(tx.db, tx.accountId)) >= limit)
    throw fieldError(
      'recurrence',
      `this account already has ${limit.toLocaleString('en-US')} recurring invoices that have not ended, the most it may have; end one (DELETE), or ask the operator to raise the limit (bms accounts set-limits --recurring-invoices N)`,
    );
}

/** The row with its next run (and its end, when its rule gives no more), as of now. */
async function withNextRun(tx: Context, row: RecurringInvoiceRow): Promise<RecurringInvoiceRow> {
  const zone = await findAccountTimezone(tx.db, tx.accountId);
  return { ...row, ...settledColumns(row, await readingOf(tx, row, zone, tx.clock.now()), tx.clock.now()) };
}

export async function createRecurringInvoice(
  ctx: Context,
  input: CreateRecurringInvoiceInput,
): Promise<RecurringInvoice> {
  const rule = readRule(input.recurrence as RecurrenceInput);
  const now = ctx.clock.now().toISOString();
  let row: RecurringInvoiceRow = {
    id: newId(),
    account_id: ctx.accountId,
    external_id: input.external_id ?? null,
    client_id: input.client_id,
    property_id: input.property_id ?? null,
    job_id: input.job_id ?? null,
    name: input.name ?? null,
    invoice: JSON.stringify(await readInvoice(ctx, input.invoice, undefined)),
    recurrence: JSON.stringify(rule),
    send_time: input.send_time ?? '09:00',
    auto_send: input.auto_send === true ? 1 : 0,
    catch_up_days: input.catch_up_days ?? 30,
    status: 'active',
    paused_from: null,
    paused_until: null,
    counts_from: now,
    next_run_at: null,
    occurrences_made: 0,
    last_invoice_id: null,
    last_error: null,
    ended_at: null,
    metadata: JSON.stringify(input.metadata ?? {}),
    created_at: now,
    updated_at: now,
  };
  await checkTemplate(ctx, row);
  return guardExternalId(ctx, 'recurring_invoices', input.external_id, () =>
    inTransaction(ctx, async (tx) => {
      await assertRoom(tx);
      row = await withNextRun(tx, row);
      await repository.insertRecurringInvoice(tx.db, row);
      const created = await presentRecurringInvoice(tx, row);
      await recordEvent(tx, 'recurring_invoice.created', created);
      if (row.status === 'ended') await recordEvent(tx, 'recurring_invoice.ended', created);
      return created;
    }),
  );
}

function assertNotEnded(row: RecurringInvoiceRow): void {
  if (row.status === 'ended')
    throw invalidState('This recurring invoice has ended; it stays readable but no longer changes.');
}

/** Writes a change of the template and records `type` with what it changed. */
async function writeChange(
  tx: Context,
  before: RecurringInvoiceRow,
  patch: Partial<RecurringInvoiceRow>,
  type: 'recurring_invoice.updated' | 'recurring_invoice.paused' | 'recurring_invoice.resumed',
): Promise<RecurringInvoice> {
  const zone = await findAccountTimezone(tx.db, tx.accountId);
  const previous = await presentRecurringInvoice(tx, before, zone);
  const changed = await withNextRun(tx, { ...before, ...patch, updated_at: tx.clock.now().toISOString() });
  const row = await repository.updateRecurringInvoice(tx.db, tx.accountId, before.id, changed);
  const after = await presentRecurringInvoice(tx, row, zone);
  await recordEvent(tx, type, after, { previous_attributes: previousAttributes(previous, after) });
  if (row.status === 'ended') await recordEvent(tx, 'recurring_invoice.ended', after);
  return after;
}

export async function updateRecurringInvoice(
  ctx: Context,
  id: string,
  input: UpdateRecurringInvoiceInput,
  precondition?: Precondition,
): Promise<RecurringInvoice> {
  const rule = input.recurrence === undefined ? undefined : readRule(input.recurrence as RecurrenceInput);
  const current = await getRow(ctx, id);
  assertNotEnded(current);
  const invoice =
    input.invoice === undefined ? undefined : await readInvoice(ctx, input.invoice, fromJson(current.invoice));
  const patch: Partial<RecurringInvoiceRow> = {};
  if (input.client_id !== undefined) patch.client_id = input.client_id;
  if (input.property_id !== undefined) patch.property_id = input.property_id;
  else if (input.client_id !== undefined && input.client_id !== current.client_id) patch.property_id = null;
  if (input.job_id !== undefined) patch.job_id = input.job_id;
  if (input.name !== undefined) patch.name = input.name;
  if (invoice !== undefined) patch.invoice = JSON.stringify(invoice);
  if (rule !== undefined) {
    // Dates skipped stay skipped unless the new rule says which.
    const exdates =
      (input.recurrence as RecurrenceInput).exdates === undefined ? ruleOf(current).exdates : rule.exdates;
    patch.recurrence = JSON.stringify({ ...rule, exdates });
  }
  if (input.send_time !== undefined) patch.send_time = input.send_time;
  if (input.auto_send !== undefined) patch.auto_send = input.auto_send ? 1 : 0;
  if (input.catch_up_days !== undefined) patch.catch_up_days = input.catch_up_days;
  if (input.external_id !== undefined) patch.external_id = input.external_id;
  if (input.metadata !== undefined) patch.metadata = JSON.stringify(input.metadata);
  await checkTemplate(ctx, { ...current, ...patch });
  return guardExternalId(
    ctx,
    'recurring_invoices',
    input.external_id,
    () =>
      inTransaction(ctx, async (tx) => {
        const locked = await getRow(tx, id, true);
        assertNotEnded(locked);
        precondition?.(await presentRecurringInvoice(tx, locked));
        return writeChange(tx, locked, patch, 'recurring_invoice.updated');
      }),
    id,
  );
}

/** DELETE: the template ends (still readable); ending one already ended answers it as it is. */
export async function endRecurringInvoice(
  ctx: Context,
  id: string,
  precondition?: Precondition,
): Promise<RecurringInvoice> {
  return inTransaction(ctx, async (tx) => {
    const row = await getRow(tx, id, true);
    const before = await presentRecurringInvoice(tx, row);
    precondition?.(before);
    if (row.status === 'ended') return before;
    const now = tx.clock.now().toISOString();
    const ended = await repository.updateRecurringInvoice(tx.db, tx.accountId, id, {
      status: 'ended',
      ended_at: now,
      next_run_at: null,
      updated_at: now,
    });
    const after = await presentRecurringInvoice(tx, ended);
    await recordEvent(tx, 'recurring_invoice.ended', after, { previous_attributes: previousAttributes(before, after) });
    return after;
  });
}

/** skip adds a date the rule gives to exdates (a made one is 409: void its invoice); unskip removes it. */
export async function skipOccurrence(ctx: Context, id: string, date: string, undo: boolean): Promise<RecurringInvoice> {
  checkDate('occurrence_date', date);
  return inTransaction(ctx, async (tx) => {
    const row = await getRow(tx, id, true);
    assertNotEnded(row);
    const rule = ruleOf(row);
    if (datesBetween(rule, date, date).length === 0)
      throw fieldError('occurrence_date', `is not a date of this recurring invoice's rule (${rule.start_date} on)`);
    const made = await repository.madeBetween(tx.db, tx.accountId, id, date, date);
    if (made.has(date))
      throw invalidState(
        `The occurrence of ${date} was made (invoice ${made.get(date)}); void that invoice instead of skipping it.`,
      );
    const exdates = new Set(rule.exdates);
    if (undo) exdates.delete(date);
    else exdates.add(date);
    if (exdates.size > MAX_EXDATES)
      throw fieldError('occurrence_date', `a recurring invoice skips at most ${MAX_EXDATES} dates`);
    if (exdates.size === rule.exdates.length) return presentRecurringInvoice(tx, row);
    const recurrence = JSON.stringify({ ...rule, exdates: [...exdates].sort() });
    return writeChange(tx, row, { recurrence }, 'recurring_invoice.updated');
  });
}

export async function pauseRecurringInvoice(
  ctx: Context,
  id: string,
  input: { from?: string | undefined; until?: string | null | undefined },
): Promise<RecurringInvoice> {
  checkDate('from', input.from);
  checkDate('until', input.until);
  return inTransaction(ctx, async (tx) => {
    const row = await getRow(tx, id, true);
    assertNotEnded(row);
    const zone = await findAccountTimezone(tx.db, tx.accountId);
    const from = input.from ?? localToday(tx.clock.now(), zone);
    const until = input.until ?? null;
    if (until !== null && until < from) throw fieldError('until', `must not be before from (${from})`);
    return writeChange(
      tx,
      row,
      { status: 'paused', paused_from: from, paused_until: until },
      'recurring_invoice.paused',
    );
  });
}

/** Back from now: run moments in the pause are never made; those after now are. */
export async function resumeRecurringInvoice(ctx: Context, id: string): Promise<RecurringInvoice> {
  return inTransaction(ctx, async (tx) => {
    const row = await getRow(tx, id, true);
    if (row.status !== 'paused') throw invalidState(`This recurring invoice is '${row.status}', not paused.`);
    const now = tx.clock.now().toISOString();
    return writeChange(
      tx,
      row,
      { status: 'active', paused_from: null, paused_until: null, counts_from: now },
      'recurring_invoice.resumed',
    );
  });
}

/** The occurrences on the dates [from, to] (at most 366 days), each with its run moment, status and invoice. */
export async function listOccurrences(ctx: Context, id: string, from: string, to: string): Promise<Occurrence[]> {
  checkDate('from', from);
  checkDate('to', to);
  if (to < from) throw fieldError('to', 'must not be before from');
  if (addDays(from, MAX_WINDOW_DAYS - 1) < to)
    throw fieldError('to', `must be at most ${MAX_WINDOW_DAYS} days after from`);
  const row = await getRow(ctx, id);
  const zone = await findAccountTimezone(ctx.db, ctx.accountId);
  const rule = ruleOf(row);
  const made = await repository.madeBetween(ctx.db, ctx.accountId, id, from, to);
  const reading = { zone, now: ctx.clock.now(), made };
  const occurrences: Occurrence[] = [];
  for (const date of datesBetween(rule, from, to)) {
    const status = statusOf(row, rule, date, reading);
    if (status === null) continue;
    occurrences.push({
      occurrence_date: date,
      run_at: runAt(date, row.send_time, zone),
      status,
      invoice_id: made.get(date) ?? null,
    });
  }
  return occurrences;
}
