// Report queries, every one scoped by account and bounded by a ledger sequence: the figures come from
// `ledger_entries` alone (docs/api-contract.md §24); clients', invoices' and credit notes' rows give labels only
// (a name, a number), read by id (docs/architecture.md, "Who owns which table").
import { setImmediate as yieldTurn } from 'node:timers/promises';
import { sql } from 'kysely';
import { type Executor, fromJson } from '../../db/index.js';
import { REPORT_PIECES } from '../ledger/index.js';

/** A ledger entry as the reports read it: numbers as numbers, `taxes` parsed. */
export interface ReportEntry {
  sequence: number;
  client_id: string;
  currency: string;
  type: string;
  effective_date: string;
  amount: number;
  applied_amount: number;
  invoice_id: string | null;
  credit_note_id: string | null;
  payment_id: string | null;
  due_date: string | null;
  net_amount: number | null;
  tax_amount: number | null;
  cost_amount: number | null;
  lines_without_cost: number | null;
  taxes: EntryTax[] | null;
}

export interface EntryTax {
  tax_rate_id: string | null;
  name: string | null;
  percentage: number | null;
  taxable_amount: number;
  tax_amount: number;
}

const COLUMNS = [
  'sequence',
  'client_id',
  'currency',
  'type',
  'effective_date',
  'amount',
  'applied_amount',
  'invoice_id',
  'credit_note_id',
  'payment_id',
  'due_date',
  'net_amount',
  'tax_amount',
  'cost_amount',
  'lines_without_cost',
  'taxes',
] as const;

type Row = Record<(typeof COLUMNS)[number], unknown>;

function entryOf(row: Row): ReportEntry {
  const number = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  return {
    sequence: Number(row.sequence),
    client_id: row.client_id as string,
    currency: row.currency as string,
    type: row.type as string,
    effective_date: row.effective_date as string,
    amount: Number(row.amount),
    applied_amount: Number(row.applied_amount),
    invoice_id: row.invoice_id as string | null,
    credit_note_id: row.credit_note_id as string | null,
    payment_id: row.payment_id as string | null,
    due_date: row.due_date as string | null,
    net_amount: number(row.net_amount),
    tax_amount: number(row.tax_amount),
    cost_amount: number(row.cost_amount),
    lines_without_cost: number(row.lines_without_cost),
    taxes: row.taxes === null || row.taxes === undefined ? null : (fromJson(row.taxes as string) as EntryTax[]),
  };
}

export interface EntryBounds {
  through?: number | undefined;
  after?: number | undefined;
  clientId?: string | undefined;
  effectiveFrom?: string | undefined;
  effectiveTo?: string | undefined;
  /** Only the entries of these days: a range of the (account, day, sequence) index each, 100 days a read. */
  days?: readonly string[] | undefined;
  types?: readonly string[] | undefined;
  /** Whether the entries' `taxes` are needed (else not read: aging and statements never look at them). */
  withTaxes?: boolean;
}

function entriesQuery(db: Executor, accountId: string, bounds: EntryBounds) {
  const columns = bounds.withTaxes ? COLUMNS : COLUMNS.filter((column) => column !== 'taxes');
  let query = db
    .selectFrom('ledger_entries')
    .select([...columns])
    .where('account_id', '=', accountId);
  if (bounds.days !== undefined) query = query.where('effective_date', 'in', [...bounds.days]);
  if (bounds.through !== undefined) query = query.where('sequence', '<=', bounds.through);
  if (bounds.after !== undefined) query = query.where('sequence', '>', bounds.after);
  if (bounds.clientId !== undefined) query = query.where('client_id', '=', bounds.clientId);
  if (bounds.effectiveFrom !== undefined) query = query.where('effective_date', '>=', bounds.effectiveFrom);
  if (bounds.effectiveTo !== undefined) query = query.where('effective_date', '<=', bounds.effectiveTo);
  if (bounds.types !== undefined) query = query.where('type', 'in', [...bounds.types]);
  return query;
}

/** The entries after sequence `after` of some days (every currency), as `findEntries` reads them. */
export function entriesOnDaysQuery(db: Executor, accountId: string, after: number, days: readonly string[]) {
  return entriesQuery(db, accountId, { after, days });
}

/** The entries up to sequence `through` (or after `after`) within the bounds, every currency, in sequence order. */
export async function findEntries(db: Executor, accountId: string, bounds: EntryBounds): Promise<ReportEntry[]> {
  if (bounds.days === undefined) {
    const rows = await entriesQuery(db, accountId, bounds).orderBy('sequence').execute();
    return rows.map((row) => entryOf(row as Row));
  }
  const found: ReportEntry[] = [];
  for (let start = 0; start < bounds.days.length; start += 100) {
    if (start > 0) await yieldTurn();
    const days = bounds.days.slice(start, start + 100);
    for (const row of await entriesQuery(db, accountId, { ...bounds, days }).execute()) found.push(entryOf(row as Row));
  }
  return found.sort((a, b) => a.sequence - b.sequence);
}

/** Labels by id: clients' names, invoices' and credit notes' numbers. */
export async function findLabels(
  db: Executor,
  accountId: string,
  table: 'clients' | 'invoices' | 'credit_notes',
  ids: readonly string[],
): Promise<Map<string, string | null>> {
  const labels = new Map<string, string | null>();
  const column = table === 'clients' ? 'name' : 'number';
  for (let start = 0; start < ids.length; start += 500) {
    if (start > 0) await yieldTurn();
    const rows = (await db
      .selectFrom(table)
      .select(['id', column])
      .where('account_id', '=', accountId)
      .where('id', 'in', ids.slice(start, start + 500))
      .execute()) as { id: string; name?: string | null; number?: string | null }[];
    for (const row of rows) labels.set(row.id, (table === 'clients' ? row.name : row.number) ?? null);
  }
  return labels;
}

export interface JobLabel {
  id: string;
  number: string | null;
  title: string;
  client_id: string;
}

/** Jobs' numbers, titles and clients, by id. */
export async function findJobLabels(
  db: Executor,
  accountId: string,
  ids: readonly string[],
): Promise<Map<string, JobLabel>> {
  const labels = new Map<string, JobLabel>();
  for (let start = 0; start < ids.length; start += 500) {
    const rows = await db
      .selectFrom('jobs')
      .select(['id', 'number', 'title', 'client_id'])
      .where('account_id', '=', accountId)
      .where('id', 'in', ids.slice(start, start + 500))
      .execute();
    for (const row of rows) labels.set(row.id, { ...row, number: row.number ?? null });
  }
  return labels;
}

/**
 * The account's jobs after number `after` (from the first without), one job with `jobId`, in the order of their
 * numbers: a range of the (account, number) index, `REPORT_PIECES.jobs` at a time.
 */
export function jobsInNumberOrderQuery(db: Executor, accountId: string, after?: number, jobId?: string) {
  let query = db.selectFrom('jobs').select(['id', 'number_seq']).where('account_id', '=', accountId);
  if (jobId !== undefined) query = query.where('id', '=', jobId);
  if (after !== undefined) query = query.where('number_seq', '>', after);
  return query.orderBy('number_seq').limit(sql.lit(REPORT_PIECES.jobs));
}

export async function findJobsInNumberOrder(
  db: Executor,
  accountId: string,
  after?: number,
  jobId?: string,
): Promise<{ id: string; number_seq: number }[]> {
  const rows = await jobsInNumberOrderQuery(db, accountId, after, jobId).execute();
  return rows.map((row) => ({ id: row.id, number_seq: Number(row.number_seq) }));
}

/** A client statement's range: one client, one currency, its days, the sequence it stands at. */
export interface StatementBounds {
  clientId: string;
  currency: string;
  from: string;
  to: string;
  through: number;
}

/** The statement's lines (its entries of the range moving money) in its order, from the client's by-day index. */
export function statementLinesQuery(db: Executor, accountId: string, bounds: StatementBounds) {
  return db
    .selectFrom('ledger_entries')
    .where('account_id', '=', accountId)
    .where('client_id', '=', bounds.clientId)
    .where('currency', '=', bounds.currency)
    .where('effective_date', '>=', bounds.from)
    .where('effective_date', '<=', bounds.to)
    .where('sequence', '<=', bounds.through)
    .where('amount', '<>', 0)
    .orderBy('effective_date')
    .orderBy('sequence');
}

/** A statement line's place in its order: its day and sequence (what its cursor carries). */
export type StatementKey = readonly [date: string, sequence: number];

/**
 * The page of lines after `after` (from the first without): `(effective_date, sequence) > after`, written as
 * `effective_date >= date and (effective_date > date or sequence > s)`, a range of the by-day index whose start
 * is a seek, so that the thousandth page reads what the first does.
 */
export function statementPageQuery(
  db: Executor,
  accountId: string,
  bounds: StatementBounds,
  after: StatementKey | undefined,
  limit: number,
) {
  let query = statementLinesQuery(db, accountId, bounds).select([
    'sequence',
    'type',
    'effective_date',
    'amount',
    'invoice_id',
    'credit_note_id',
    'payment_id',
  ]);
  if (after)
    query = query.where(({ and, or, eb }) =>
      and([
        eb('effective_date', '>=', after[0]),
        or([eb('effective_date', '>', after[0]), eb('sequence', '>', after[1])]),
      ]),
    );
  // The page size is written into the SQL, as the lists' (db/keyset.ts): at most 100 texts, and a CSV's.
  return query.limit(sql.lit(limit));
}

export interface StatementEntry {
  sequence: number;
  type: string;
  effective_date: string;
  amount: number;
  invoice_id: string | null;
  credit_note_id: string | null;
  payment_id: string | null;
}

export async function findStatementLines(
  db: Executor,
  accountId: string,
  bounds: StatementBounds,
  after: StatementKey | undefined,
  limit: number,
): Promise<StatementEntry[]> {
  const rows = await statementPageQuery(db, accountId, bounds, after, limit).execute();
  return rows.map((row) => ({ ...row, sequence: Number(row.sequence), amount: Number(row.amount) }));
}

/**
 * Σ amount of the client's entries of one day up to a sequence (in the currency, up to the statement's sequence): a
 * range of the by-day index within that day, what a later page's running balance adds to the balance the day before.
 */
export function dayThroughQuery(db: Executor, accountId: string, bounds: StatementBounds, at: StatementKey) {
  return db
    .selectFrom('ledger_entries')
    .select(sql<number | string | null>`sum(amount)`.as('total'))
    .where('account_id', '=', accountId)
    .where('client_id', '=', bounds.clientId)
    .where('currency', '=', bounds.currency)
    .where('effective_date', '=', at[0])
    .where('sequence', '<=', Math.min(at[1], bounds.through));
}

export async function sumDayThrough(
  db: Executor,
  accountId: string,
  bounds: StatementBounds,
  at: StatementKey,
): Promise<number> {
  const row = await dayThroughQuery(db, accountId, bounds, at).executeTakeFirst();
  return Number(row?.total ?? 0);
}

/**
 * The client's entries of the range in its other currencies, counted per currency: each currency found by a seek
 * of the client's by-day index past the one before, then its count a range of it.
 */
export async function countOtherCurrencies(
  db: Executor,
  accountId: string,
  bounds: StatementBounds,
): Promise<{ currency: string; count: number }[]> {
  const counts: { currency: string; count: number }[] = [];
  let after = '';
  for (;;) {
    const next = await db
      .selectFrom('ledger_entries')
      .select('currency')
      .where('account_id', '=', accountId)
      .where('client_id', '=', bounds.clientId)
      .where('currency', '>', after)
      .orderBy('currency')
      .limit(1)
      .executeTakeFirst();
    if (!next) return counts;
    after = next.currency;
    if (after === bounds.currency) continue;
    const row = await db
      .selectFrom('ledger_entries')
      .select(sql<number | string>`count(*)`.as('count'))
      .where('account_id', '=', accountId)
      .where('client_id', '=', bounds.clientId)
      .where('currency', '=', after)
      .where('effective_date', '>=', bounds.from)
      .where('effective_date', '<=', bounds.to)
      .where('sequence', '<=', bounds.through)
      .executeTakeFirst();
    if (Number(row?.count ?? 0) > 0) counts.push({ currency: after, count: Number(row?.count) });
  }
}
