// When a recurring invoice's occurrences run and what each one is (docs/api-contract.md §23, §32): dates of the
// rule in the account's zone, each run at its date's send_time there (09:00 stays 09:00 across daylight saving;
// a time in the gap moves forward by the gap, an ambiguous one takes its first instant, as §18). Pure functions of
// the template, the zone, the invoices made and `now`.
import { Temporal } from '@js-temporal/polyfill';
import { fromJson } from '../../db/index.js';
import type { RecurringInvoiceRow } from '../../db/types.js';
import { localToday } from '../documents/index.js';
import { occurrenceStart, type Recurrence, ruleDates } from '../visit-schedules/index.js';
import type { Context } from '../../kernel/context.js';
import type { CreateInvoiceInput } from '../invoices/index.js';
import { madeBetween } from './recurring-invoices.repository.js';
import type { InvoiceTemplate, OccurrenceStatus } from './recurring-invoices.schemas.js';

/** How far ahead the next run is looked for: a year and a day covers every yearly rule. */
const LOOK_AHEAD_DAYS = 400;

export const ruleOf = (row: Pick<RecurringInvoiceRow, 'recurrence'>): Recurrence =>
  fromJson<Recurrence>(row.recurrence);

/** The instant the occurrence of `date` runs: its date's send_time in `zone`. */
export function runAt(date: string, sendTime: string, zone: string): string {
  return occurrenceStart(Temporal.PlainDate.from(date), sendTime, zone)
    .toInstant()
    .toString({ smallestUnit: 'millisecond' });
}

export const addDays = (date: string, days: number): string => Temporal.PlainDate.from(date).add({ days }).toString();

/** The instant a local date begins in `zone` (a pause ending at paused_until ends at the next day's start). */
export function startOfDay(date: string, zone: string): string {
  return Temporal.PlainDate.from(date)
    .toZonedDateTime({ timeZone: zone })
    .toInstant()
    .toString({ smallestUnit: 'millisecond' });
}

type Template = Pick<
  RecurringInvoiceRow,
  | 'recurrence'
  | 'send_time'
  | 'catch_up_days'
  | 'status'
  | 'paused_from'
  | 'paused_until'
  | 'counts_from'
  | 'created_at'
  | 'ended_at'
>;

export interface Reading {
  zone: string;
  now: Date;
  /** The invoices made, by occurrence date (at least those of the dates asked about). */
  made: ReadonlyMap<string, string>;
}

export const inPause = (template: Pick<Template, 'paused_from' | 'paused_until'>, date: string): boolean =>
  template.paused_from !== null &&
  date >= template.paused_from &&
  (template.paused_until === null || date <= template.paused_until);

/**
 * What the occurrence of `date` is, or null when it is not listed: its run moment came before the template was
 * created (§32), or after the template ended without it being made.
 */
export function statusOf(
  template: Template,
  rule: Recurrence,
  date: string,
  reading: Reading,
): OccurrenceStatus | null {
  const at = runAt(date, template.send_time, reading.zone);
  if (reading.made.has(date)) return 'made';
  if (at < template.created_at) return null;
  if (rule.exdates.includes(date)) return 'skipped';
  if (template.ended_at !== null && at > template.ended_at) return null;
  if (inPause(template, date)) return 'paused';
  const now = reading.now.toISOString();
  if (at > now) return 'upcoming';
  if (at < template.counts_from) return 'missed';
  const today = localToday(reading.now, reading.zone);
  // Catch-up counts its last day: with 30, the date 30 days before today is still made.
  if (date < addDays(today, -Number(template.catch_up_days))) return 'missed';
  return 'due';
}

/** The rule's dates in [from, to] (inclusive). */
export function datesBetween(rule: Recurrence, from: string, to: string): string[] {
  return ruleDates(rule, Temporal.PlainDate.from(from), Temporal.PlainDate.from(to)).map((date) => date.toString());
}

/** The dates due now, oldest first. */
export function dueDates(template: Template, reading: Reading): string[] {
  const rule = ruleOf(template);
  const today = localToday(reading.now, reading.zone);
  const from = addDays(today, -Number(template.catch_up_days));
  return datesBetween(rule, from, addDays(today, 1)).filter(
    (date) => statusOf(template, rule, date, reading) === 'due',
  );
}

export interface NextRun {
  /** The next date to be made (due now, else upcoming), or null. */
  date: string | null;
  /** When the worker should look at the template next: that date's run, or the end of a pause; null: never. */
  runAt: string | null;
  /** The rule gives no date to make any more: the template ends. */
  finished: boolean;
}

/** The next occurrence to make and when to look again. */
export function nextRun(template: Template, reading: Reading): NextRun {
  const rule = ruleOf(template);
  const today = localToday(reading.now, reading.zone);
  const from = addDays(today, -Number(template.catch_up_days));
  const dates = datesBetween(rule, from, addDays(today, LOOK_AHEAD_DAYS));
  let date: string | null = null;
  for (const candidate of dates) {
    const status = statusOf(template, rule, candidate, reading);
    if (status === 'due' || status === 'upcoming') {
      date = candidate;
      break;
    }
  }
  const pauseEnds =
    template.status === 'paused' && template.paused_until !== null
      ? startOfDay(addDays(template.paused_until, 1), reading.zone)
      : null;
  let at = date === null ? null : runAt(date, template.send_time, reading.zone);
  // A date due now whose moment has passed is looked at again at once.
  if (at !== null && at < reading.now.toISOString()) at = reading.now.toISOString();
  if (pauseEnds !== null && (at === null || pauseEnds < at)) at = pauseEnds;
  // Bounded, not paused, nothing left to make in reach and no date beyond it: the rule is over.
  const finished =
    (rule.count !== null || rule.until !== null) &&
    template.status !== 'paused' &&
    date === null &&
    datesBetween(rule, addDays(today, LOOK_AHEAD_DAYS + 1), '9999-12-31').length === 0;
  return { date, runAt: at, finished };
}

/** The reading of a template now: the zone, the clock, and the invoices made on the dates that may still be due. */
export async function readingOf(
  ctx: Pick<Context, 'db' | 'accountId'>,
  row: Pick<RecurringInvoiceRow, 'id' | 'catch_up_days'>,
  zone: string,
  now: Date,
): Promise<Reading> {
  const today = localToday(now, zone);
  const made = await madeBetween(
    ctx.db,
    ctx.accountId,
    row.id,
    addDays(today, -Number(row.catch_up_days) - 1),
    addDays(today, 1),
  );
  return { zone, now, made };
}

/** The columns a template's next run sets: when to look again, or its end when its rule gives no more. */
export function settledColumns(
  row: RecurringInvoiceRow,
  reading: Reading,
  now: Date,
): Pick<RecurringInvoiceRow, 'next_run_at' | 'status' | 'ended_at'> {
  if (row.status === 'ended') return { next_run_at: null, status: 'ended', ended_at: row.ended_at };
  const next = nextRun(row, reading);
  if (next.finished) return { next_run_at: null, status: 'ended', ended_at: now.toISOString() };
  return { next_run_at: next.runAt, status: row.status, ended_at: null };
}

/** What `POST /v1/invoices` is given for an occurrence made on `issueDate` (the local day it is made). */
export function invoiceInput(
  row: Pick<RecurringInvoiceRow, 'client_id' | 'property_id' | 'job_id' | 'invoice'>,
  issueDate: string,
): CreateInvoiceInput {
  const invoice = fromJson<InvoiceTemplate>(row.invoice);
  const input: CreateInvoiceInput = {
    client_id: row.client_id,
    property_id: row.property_id,
    line_items: invoice.line_items as CreateInvoiceInput['line_items'],
    currency: invoice.currency,
    notes: invoice.notes,
    discount: invoice.discount as CreateInvoiceInput['discount'],
    metadata: invoice.metadata,
    issue_date: issueDate,
    due_date: addDays(issueDate, invoice.payment_terms_days),
  };
  if (row.job_id !== null) input.job_id = row.job_id;
  if (invoice.prices_include_tax !== null) input.prices_include_tax = invoice.prices_include_tax;
  if (invoice.rounding !== null) input.rounding = invoice.rounding;
  if (invoice.reminders_enabled === false) input.reminders_enabled = false;
  return input;
}
