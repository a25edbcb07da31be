// A report as CSV (docs/api-contract.md §24, "CSV"): RFC 4180 through csv-stringify, a header row, every row, the
// totals last as TOTAL; money as decimal text with the currency's digits; a text cell that a spreadsheet would
// read as a formula gets a leading `'` (§32: also one that already starts with `'` and such a character).
import { stringify } from 'csv-stringify/sync';
import { CSV_WRITE_OPTIONS, decimalText, escapeFormula, minorDigits } from '../../core/csv-cells.js';
import type { Report } from './reports.schemas.js';

type Cell = string | number | boolean | null | undefined;
type Flat = Record<string, Cell>;

/** A row with its buckets as columns of their own (aged receivables), the rest as they are. */
function flatten(row: Record<string, unknown>): Flat {
  const flat: Flat = {};
  for (const [key, value] of Object.entries(row)) {
    if (key === 'buckets' && Array.isArray(value))
      for (const bucket of value as { label: string; amount: number }[])
        flat[`bucket_${bucket.label}_amount`] = bucket.amount;
    else flat[key] = value as Cell;
  }
  return flat;
}

/** The report's CSV text: header, rows, then TOTAL (totals not among the row's columns get columns at the end). */
export function reportCsv(report: Report<unknown, unknown, unknown>): string {
  const rows = report.rows.map((row) => flatten(row as Record<string, unknown>));
  const totals = flatten(report.totals as Record<string, unknown>);
  const columns: string[] = [];
  const sample = rows[0] ?? flattenTemplate(report);
  for (const key of Object.keys(sample)) columns.push(key);
  for (const key of Object.keys(totals)) if (!columns.includes(key)) columns.push(key);
  const digits = minorDigits(report.currency);
  const cell = (key: string, value: Cell): string => {
    if (value === null || value === undefined) return '';
    if (typeof value === 'number')
      return key === 'amount' || key.endsWith('_amount') ? decimalText(value, digits) : String(value);
    if (typeof value === 'boolean') return value ? 'true' : 'false';
    return escapeFormula(value);
  };
  const records = rows.map((row) => columns.map((key) => cell(key, row[key])));
  records.push(columns.map((key, index) => (index === 0 ? 'TOTAL' : key in totals ? cell(key, totals[key]) : '')));
  return stringify([columns, ...records], CSV_WRITE_OPTIONS);
}

/** The columns of a report with no rows, so its header is the same as with rows. */
function flattenTemplate(report: Report<unknown, unknown, unknown>): Flat {
  const buckets = (report.totals as { buckets?: { label: string }[] }).buckets;
  const bucketColumns = Object.fromEntries((buckets ?? []).map((bucket) => [`bucket_${bucket.label}_amount`, null]));
  const figures = { open_amount: null, credit_amount: null, balance_amount: null };
  switch (report.type) {
    case 'aged_receivables':
      return (report.parameters as { group_by: string }).group_by === 'invoice'
        ? {
            client_id: null,
            client_name: null,
            invoice_id: null,
            number: null,
            due_date: null,
            days_past_due: null,
            ...bucketColumns,
            ...figures,
          }
        : { client_id: null, client_name: null, ...bucketColumns, ...figures };
    case 'client_statement':
      return {
        effective_date: null,
        sequence: null,
        type: null,
        number: null,
        description: null,
        amount: null,
        balance_amount: null,
      };
    case 'revenue':
      return { period_start: null, period_end: null, net_amount: null, tax_amount: null, gross_amount: null };
    case 'job_profitability':
      return {
        job_id: null,
        number: null,
        title: null,
        client_id: null,
        revenue_amount: null,
        cost_amount: null,
        margin_amount: null,
        margin_basis_points: null,
        lines_without_cost: null,
      };
    default:
      return {
        tax_rate_id: null,
        name: null,
        percentage: null,
        compound: null,
        registration_number: null,
        taxable_amount: null,
        tax_amount: null,
        invoices_tax_amount: null,
        credit_notes_tax_amount: null,
      };
  }
}
