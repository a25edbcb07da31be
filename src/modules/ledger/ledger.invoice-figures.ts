// The ledger's invoice figures (docs/architecture.md, "Kept copies"): per account and invoice, what its entries give
// job profitability (docs/api-contract.md §24): its issue date, client and currency (those of its issued entry or
// latest restatement), whether it is void, its net, its credit notes' nets, its cost, its product lines without a
// cost, and its job (fixed when the invoice is made). Kept by the only poster of entries, in the posting's
// transaction, with the last sequence that moved it: a report sums the rows no entry after its sequence moved in the
// database, and works the others out again from their entries.
import type { Executor } from '../../db/index.js';
import type { LedgerInvoiceFigureRow } from '../../db/types.js';
import { REPORT_PIECES, sequenceRangesAfter } from './ledger.open-items.js';

/** What the figures read of an entry. */
export interface FigureEntry {
  sequence: number;
  client_id: string;
  currency: string;
  type: string;
  effective_date: string;
  amount: number;
  credit_note_id: string | null;
  net_amount: number | null;
  tax_amount: number | null;
  cost_amount: number | null;
  lines_without_cost: number | null;
}

/** An invoice as its entries up to a sequence give it. */
export interface InvoiceFigures {
  issueDate: string | null;
  clientId: string;
  currency: string;
  voided: boolean;
  net: number;
  credited: number;
  cost: number;
  withoutCost: number;
  entries: number;
}

const INVOICE_DOCUMENT = new Set(['invoice_issued', 'invoice_adjusted', 'late_fee', 'invoice_voided']);

/**
 * One invoice's figures from its entries in sequence order. A restatement (a new issue date, client or currency,
 * §22) is two adjustments posted together: the first takes the invoice's figures back to zero, the next restates
 * it under its new date, client and currency.
 */
export function invoiceFiguresOf(history: readonly FigureEntry[]): InvoiceFigures | null {
  let figures: InvoiceFigures | null = null;
  let amount = 0;
  for (const [index, entry] of history.entries()) {
    if (entry.credit_note_id !== null) {
      if (figures && (entry.type === 'credit_note_issued' || entry.type === 'credit_note_voided'))
        figures.credited += entry.net_amount ?? 0;
      continue;
    }
    if (!INVOICE_DOCUMENT.has(entry.type)) continue;
    const previous = history[index - 1];
    const restated =
      entry.type === 'invoice_adjusted' &&
      previous?.type === 'invoice_adjusted' &&
      previous.credit_note_id === null &&
      previous.sequence === entry.sequence - 1 &&
      amount === 0;
    if (entry.type === 'invoice_issued' || restated || !figures) {
      figures ??= {
        issueDate: null,
        clientId: entry.client_id,
        currency: entry.currency,
        voided: false,
        net: 0,
        credited: 0,
        cost: 0,
        withoutCost: 0,
        entries: 0,
      };
      figures.issueDate = entry.effective_date;
      figures.clientId = entry.client_id;
      figures.currency = entry.currency;
    }
    if (entry.type === 'invoice_voided') figures.voided = true;
    amount += entry.amount;
    figures.net += entry.net_amount ?? entry.amount - (entry.tax_amount ?? 0);
    figures.cost += entry.cost_amount ?? 0;
    figures.withoutCost += entry.lines_without_cost ?? 0;
    figures.entries += 1;
  }
  return figures;
}

const FIGURE_COLUMNS = [
  'sequence',
  'invoice_id',
  'client_id',
  'currency',
  'type',
  'effective_date',
  'amount',
  'credit_note_id',
  'net_amount',
  'tax_amount',
  'cost_amount',
  'lines_without_cost',
] as const;

/** Every entry naming one of the invoices, up to `through` (all without), by invoice, in sequence order. */
export async function figureHistoriesOf(
  db: Executor,
  accountId: string,
  invoiceIds: readonly string[],
  through?: number,
): Promise<Map<string, FigureEntry[]>> {
  const histories = new Map<string, FigureEntry[]>();
  const number = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  for (let start = 0; start < invoiceIds.length; start += 500) {
    let query = db
      .selectFrom('ledger_entries')
      .select([...FIGURE_COLUMNS])
      .where('account_id', '=', accountId)
      .where('invoice_id', 'in', invoiceIds.slice(start, start + 500));
    if (through !== undefined) query = query.where('sequence', '<=', through);
    for (const row of await query.execute()) {
      const entry: FigureEntry = {
        ...row,
        sequence: Number(row.sequence),
        amount: Number(row.amount),
        net_amount: number(row.net_amount),
        tax_amount: number(row.tax_amount),
        cost_amount: number(row.cost_amount),
        lines_without_cost: number(row.lines_without_cost),
      };
      histories.set(row.invoice_id!, [...(histories.get(row.invoice_id!) ?? []), entry]);
    }
  }
  for (const history of histories.values()) history.sort((a, b) => a.sequence - b.sequence);
  return histories;
}

/** The kept row of an invoice from its figures (null: no row). */
export function invoiceFigureRowOf(
  accountId: string,
  invoiceId: string,
  jobId: string | null,
  figures: InvoiceFigures | null,
  lastSequence: number,
): LedgerInvoiceFigureRow | null {
  if (!figures || figures.issueDate === null) return null;
  return {
    account_id: accountId,
    invoice_id: invoiceId,
    job_id: jobId,
    client_id: figures.clientId,
    currency: figures.currency,
    issue_date: figures.issueDate,
    voided: figures.voided ? 1 : 0,
    net_amount: figures.net,
    credited_amount: figures.credited,
    cost_amount: figures.cost,
    lines_without_cost: figures.withoutCost,
    entry_count: figures.entries,
    last_sequence: lastSequence,
  };
}

/** Rewrites the rows of every invoice the posted entries name, from all its entries. Called by `postEntries` alone. */
export async function keepInvoiceFigures(
  db: Executor,
  accountId: string,
  posted: readonly { invoice_id: string | null }[],
): Promise<void> {
  const ids = [...new Set(posted.flatMap((entry) => (entry.invoice_id ? [entry.invoice_id] : [])))];
  if (ids.length === 0) return;
  const histories = await figureHistoriesOf(db, accountId, ids);
  const jobs = await db
    .selectFrom('invoices')
    .select(['id', 'job_id'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
  const jobOf = new Map(jobs.map((row) => [row.id, row.job_id ?? null]));
  await db
    .deleteFrom('ledger_invoice_figures')
    .where('account_id', '=', accountId)
    .where('invoice_id', 'in', ids)
    .execute();
  const rows = ids.flatMap((id) => {
    const history = histories.get(id) ?? [];
    const last = history.reduce((max, entry) => Math.max(max, entry.sequence), 0);
    const row = invoiceFigureRowOf(accountId, id, jobOf.get(id) ?? null, invoiceFiguresOf(history), last);
    return row ? [row] : [];
  });
  if (rows.length > 0) await db.insertInto('ledger_invoice_figures').values(rows).execute();
}

export interface JobSums {
  job_id: string;
  currency: string;
  revenue_amount: number;
  cost_amount: number;
  lines_without_cost: number;
  entry_count: number;
}

export interface JobBounds {
  from: string;
  to: string;
  through: number;
  clientId?: string | undefined;
  jobId?: string | undefined;
}

/** Some jobs by id: those in (`after`, `through`] (`after` null: from the first; `through` null: to the last). */
export interface JobPiece {
  after: string | null;
  through: string | null;
}

/**
 * Per job and currency, the sums of the kept figures of the invoices issued from–to and not void that no entry after
 * `through` moved, summed by the database from the (account, job, currency, …) index alone, which holds every column
 * read, in its order (no row of the table, no sort): one job's with `jobId`, else the jobs of a piece. Invoices
 * without a job are never read.
 */
export function jobSumsQuery(db: Executor, accountId: string, bounds: JobBounds, piece?: JobPiece) {
  let query = db
    .selectFrom('ledger_invoice_figures')
    .select((eb) => [
      'job_id',
      'currency',
      eb.fn.sum<number | string>(eb('net_amount', '+', eb.ref('credited_amount'))).as('revenue_amount'),
      eb.fn.sum<number | string>('cost_amount').as('cost_amount'),
      eb.fn.sum<number | string>('lines_without_cost').as('lines_without_cost'),
      eb.fn.sum<number | string>('entry_count').as('entry_count'),
    ])
    .where('account_id', '=', accountId);
  if (bounds.jobId !== undefined) query = query.where('job_id', '=', bounds.jobId);
  else {
    // No text bound stands below every id: ids are uuids on PostgreSQL.
    const after = piece?.after ?? null;
    query = after === null ? query.where('job_id', 'is not', null) : query.where('job_id', '>', after);
    if (piece?.through) query = query.where('job_id', '<=', piece.through);
  }
  query = query
    .where('issue_date', '>=', bounds.from)
    .where('issue_date', '<=', bounds.to)
    .where('voided', '=', 0)
    .where('last_sequence', '<=', bounds.through);
  if (bounds.clientId !== undefined) query = query.where('client_id', '=', bounds.clientId);
  return query.groupBy(['job_id', 'currency']);
}

/**
 * `jobSumsQuery`'s sums a piece at a time: the jobs (by id) whose figures fill about so many keys of the (account,
 * job, currency, …) index (`REPORT_PIECES.figures`), each piece's end found by a seek and as many keys. One piece
 * for one job.
 */
export async function* jobSumPieces(db: Executor, accountId: string, bounds: JobBounds): AsyncGenerator<JobSums[]> {
  const sumsOf = async (piece?: JobPiece) =>
    (await jobSumsQuery(db, accountId, bounds, piece).execute()).map((row) => ({
      job_id: row.job_id!,
      currency: row.currency,
      revenue_amount: Number(row.revenue_amount),
      cost_amount: Number(row.cost_amount),
      lines_without_cost: Number(row.lines_without_cost),
      entry_count: Number(row.entry_count),
    }));
  if (bounds.jobId !== undefined) {
    yield await sumsOf();
    return;
  }
  let after: string | null = null;
  for (;;) {
    let seek = db.selectFrom('ledger_invoice_figures').select('job_id').where('account_id', '=', accountId);
    seek = after === null ? seek.where('job_id', 'is not', null) : seek.where('job_id', '>', after);
    const end = await seek.orderBy('job_id').limit(1).offset(REPORT_PIECES.figures).executeTakeFirst();
    const through = end?.job_id ?? null;
    yield await sumsOf({ after, through });
    if (through === null) return;
    after = through;
  }
}

/**
 * The invoices with a job that an entry after `through` moved (their figures at `through` are worked out again from
 * their entries): every entry naming an invoice is kept in its row's last sequence, so they are the rows whose last
 * sequence is past `through`, read by the (account, last sequence) index a range of sequences at a time, never the
 * later entries themselves (an invoice without a row has no figures at any sequence).
 */
export function figuresMovedAfterQuery(db: Executor, accountId: string, from: number, to: number) {
  return db
    .selectFrom('ledger_invoice_figures')
    .select(['invoice_id', 'job_id'])
    .where('account_id', '=', accountId)
    .where('last_sequence', '>', from)
    .where('last_sequence', '<=', to)
    .where('job_id', 'is not', null);
}

export async function findInvoiceFiguresMovedAfter(
  db: Executor,
  accountId: string,
  through: number,
): Promise<{ invoice_id: string; job_id: string }[]> {
  const moved: { invoice_id: string; job_id: string }[] = [];
  for await (const [from, to] of sequenceRangesAfter(db, accountId, through))
    for (const row of await figuresMovedAfterQuery(db, accountId, from, to).execute())
      moved.push({ invoice_id: row.invoice_id, job_id: row.job_id! });
  return moved;
}
