// Billing time onto an invoice (docs/api-contract.md §29): entries grouped into lines of hours (unit code HUR) at
// their rate, on a draft of the entries' client and currency, once only: an entry billed on an invoice that is not
// void is a 409, two racing calls included (each entry is marked only while unbilled, in the call's transaction).
// The invoice's line left out, its deletion or its void releases the entries (the listener registered below).
import { AppError, type ErrorDetail, fieldError, invalidState, validationError } from '../../core/errors.js';
import { localDate, windowEdge, addDaysToDate } from '../../core/time.js';
import type { JobRow, TimeEntryRow } from '../../db/types.js';
import { type Context, inTransaction } from '../../kernel/context.js';
import { findProducts } from '../catalog/index.js';
import type { LineItemInput } from '../documents/index.js';
import { previousAttributes, recordEvent } from '../events/index.js';
import { addTimeLines, lockDraftInvoice, onTimeReleased } from '../invoices/index.js';
import { requireJobReference } from '../jobs/index.js';
import { type BillTimeInput, MAX_BILLED_PER_CALL } from './billing.schemas.js';
import { billedHundredths, durationSeconds } from './figures.js';
import * as repository from './time-entries.repository.js';
import { isLocked, presentTimeEntry, type TimeSettings, timeSettings } from './time-entries.service.js';

/** An invoice holds at most this many lines (§6). */
const MAX_LINES = 200;

interface Billed {
  row: TimeEntryRow;
  hundredths: bigint;
  date: string;
}

/** Why an entry cannot be billed on this invoice (a 422's message), or undefined when it can. */
function refusalOf(
  row: TimeEntryRow,
  invoice: { client_id: string; currency: string },
  jobs: Map<string, JobRow>,
  includeUnapproved: boolean,
): string | undefined {
  if (Number(row.billable) !== 1) return 'is not billable';
  if (row.ended_at === null) return 'is running: stop it first';
  if (row.job_id === null) return 'is on no job';
  if (jobs.get(row.job_id)?.client_id !== invoice.client_id) return 'is on a job of another client than the invoice’s';
  if (row.currency !== invoice.currency) return `is in ${row.currency} and the invoice in ${invoice.currency}`;
  if (row.approved_at === null && !includeUnapproved)
    return 'is not approved: approve it, or send include_unapproved: true';
  return undefined;
}

/** The entries a call names, checked: 422 naming time_entry_ids[i], then 409s (locked period, already billed). */
async function namedEntries(
  tx: Context,
  ids: readonly string[],
  invoice: { client_id: string; currency: string },
  settings: TimeSettings,
  includeUnapproved: boolean,
): Promise<TimeEntryRow[]> {
  const rows = new Map((await repository.findTimeEntries(tx.db, tx.accountId, ids, true)).map((row) => [row.id, row]));
  const jobs = new Map<string, JobRow>();
  for (const jobId of new Set([...rows.values()].flatMap((row) => row.job_id ?? [])))
    jobs.set(jobId, await requireJobReference(tx, jobId));
  const details: ErrorDetail[] = [];
  ids.forEach((id, index) => {
    const row = rows.get(id);
    const reason = row ? refusalOf(row, invoice, jobs, includeUnapproved) : `no time entry with id '${id}' exists`;
    if (reason) details.push({ field: `time_entry_ids[${index}]`, message: reason });
  });
  if (details.length > 0) throw validationError(details);
  const named = ids.map((id) => rows.get(id) as TimeEntryRow);
  const locked = named.findIndex((row) => isLocked(row.started_at, settings));
  if (locked !== -1)
    throw invalidState(
      `Time entry ${named[locked]?.id} starts on or before ${settings.lockedThrough}, a locked pay period: it cannot be billed; unlock it first.`,
    );
  return named;
}

/** A job's entries that qualify (oldest first, at most 200): 422 on job_id when it has none. */
async function entriesOfJob(
  tx: Context,
  jobId: string,
  invoice: { client_id: string; currency: string },
  settings: TimeSettings,
  includeUnapproved: boolean,
): Promise<TimeEntryRow[]> {
  const job = await requireJobReference(tx, jobId);
  if (job.client_id !== invoice.client_id) throw fieldError('job_id', 'belongs to another client than the invoice’s');
  const rows = await repository.findBillableOfJob(
    tx.db,
    tx.accountId,
    job.id,
    {
      currency: invoice.currency,
      includeUnapproved,
      startingFrom:
        settings.lockedThrough === null
          ? null
          : windowEdge(addDaysToDate(settings.lockedThrough, 1), settings.timezone),
    },
    MAX_BILLED_PER_CALL,
  );
  if (rows.length === 0)
    throw fieldError(
      'job_id',
      `has no time to bill: no billable, stopped, unbilled${includeUnapproved ? '' : ', approved'} entry in ${invoice.currency} outside a locked period`,
    );
  return rows;
}

/** The entries grouped into lines: a member and rate (and a local date with `day`); each entry alone with `entry`. */
function groupsOf(billed: readonly Billed[], groupBy: BillTimeInput['group_by']): Billed[][] {
  const groups = new Map<string, Billed[]>();
  for (const entry of billed) {
    const { row } = entry;
    const key =
      groupBy === 'team_member'
        ? `${row.team_member_id} ${row.hourly_rate_amount}`
        : groupBy === 'day'
          ? `${row.team_member_id} ${row.hourly_rate_amount} ${entry.date}`
          : row.id;
    const group = groups.get(key);
    if (group) group.push(entry);
    else groups.set(key, [entry]);
  }
  return [...groups.values()];
}

function descriptionOf(group: readonly Billed[], name: string): string {
  const first = group[0] as Billed;
  const last = group[group.length - 1] as Billed;
  const dates = first.date === last.date ? first.date : `${first.date} to ${last.date}`;
  const notes = group.length === 1 && first.row.notes ? `: ${first.row.notes}` : '';
  return `Labour, ${name}, ${dates}${notes}`.slice(0, 500);
}

/** POST /v1/invoices/:id/time-entries: the invoice with a line per group of entries. */
export async function billTime(ctx: Context, invoiceId: string, input: BillTimeInput) {
  if (input.time_entry_ids !== undefined && input.job_id !== undefined)
    throw fieldError('job_id', 'not together with time_entry_ids: give one or the other');
  return inTransaction(ctx, async (tx) => {
    const settings = await timeSettings(tx);
    const record = await lockDraftInvoice(tx, invoiceId);
    const includeUnapproved = input.include_unapproved === true;
    let product: { id: string } | undefined;
    if (input.product_id !== undefined) {
      [product] = await findProducts(tx.db, tx.accountId, [input.product_id]);
      if (!product) throw fieldError('product_id', `no product with id '${input.product_id}' exists`);
    }
    const rows =
      input.time_entry_ids !== undefined
        ? await namedEntries(tx, input.time_entry_ids, record, settings, includeUnapproved)
        : await entriesOfJob(tx, input.job_id as string, record, settings, includeUnapproved);
    const taken = rows.find((row) => row.invoice_id !== null);
    if (taken)
      throw new AppError('CONFLICT', `Time entry ${taken.id} is already billed on invoice ${taken.invoice_id}.`, [
        {
          field: `time_entry_ids[${rows.indexOf(taken)}]`,
          message: `is already billed on invoice ${taken.invoice_id}`,
          invoice_id: taken.invoice_id,
        } as ErrorDetail,
      ]);
    const billed: Billed[] = rows
      .map((row) => ({
        row,
        hundredths: billedHundredths(
          durationSeconds(row.started_at, row.ended_at as string, Number(row.break_minutes)),
          settings.incrementMinutes,
        ),
        date: localDate(row.started_at, settings.timezone),
      }))
      .sort((a, b) => (a.row.started_at < b.row.started_at ? -1 : a.row.started_at > b.row.started_at ? 1 : 0));
    const groups = groupsOf(billed, input.group_by ?? 'entry');
    const existing = JSON.parse(record.line_items).length as number;
    if (existing + groups.length > MAX_LINES)
      throw fieldError(
        'group_by',
        `would make ${groups.length} lines on an invoice of ${existing}: an invoice holds at most ${MAX_LINES}`,
      );
    const names = await repository.findMemberNames(tx.db, tx.accountId, [
      ...new Set(rows.map((row) => row.team_member_id)),
    ]);
    const lines: LineItemInput[] = groups.map((group) => {
      const first = group[0] as Billed;
      const hundredths = group.reduce((sum, entry) => sum + entry.hundredths, 0n);
      return {
        ...(product ? { product_id: product.id } : {}),
        name: null,
        description: descriptionOf(group, names.get(first.row.team_member_id) ?? 'team member'),
        quantity: Number(hundredths) / 100,
        unit_amount: Number(first.row.hourly_rate_amount),
        kept: { unit_code: 'HUR', unit_cost_amount: null, time_entry_ids: group.map((entry) => entry.row.id) },
      };
    });
    const { invoice } = await addTimeLines(tx, record, lines);
    const now = tx.clock.now().toISOString();
    for (const entry of billed) {
      const updated = await repository.markBilled(tx.db, tx.accountId, entry.row.id, {
        invoice_id: record.id,
        billed_hundredths: Number(entry.hundredths),
        updated_at: now,
      });
      if (!updated)
        throw new AppError('CONFLICT', `Time entry ${entry.row.id} was billed on another invoice meanwhile.`);
      const before = presentTimeEntry(entry.row, settings);
      const after = presentTimeEntry(updated, settings);
      await recordEvent(tx, 'time_entry.updated', after, { previous_attributes: previousAttributes(before, after) });
    }
    return invoice;
  });
}

// The invoices module calls this when a time line is left out of a PUT, a draft is deleted or an invoice voided.
onTimeReleased(async (tx, invoiceId, entryIds) => {
  const settings = await timeSettings(tx);
  const before = new Map(
    (await repository.findTimeEntries(tx.db, tx.accountId, entryIds, true)).map((row) => [row.id, row]),
  );
  const released = await repository.releaseBilled(
    tx.db,
    tx.accountId,
    invoiceId,
    entryIds,
    tx.clock.now().toISOString(),
  );
  for (const row of released) {
    const previous = before.get(row.id);
    const after = presentTimeEntry(row, settings);
    await recordEvent(tx, 'time_entry.updated', after, {
      previous_attributes: previous ? previousAttributes(presentTimeEntry(previous, settings), after) : {},
    });
  }
});
