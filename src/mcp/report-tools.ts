// The MCP tools of reports (docs/api-contract.md §24): aged receivables and revenue, read-only, as the REST
// reports answer them (the same parameters, a page of rows with the totals of all, and the ledger_sequence
// that repeats the answer).
import type { Context } from '../kernel/context.js';
import type { Report, Standing } from '../modules/reports/index.js';
import {
  AgedReceivablesQuery,
  agedReceivables,
  onOneSnapshot,
  pageOf,
  RevenueQuery,
  revenue,
  standingOf,
} from '../modules/reports/index.js';
import { objectSchema, type Tool } from './tool-kit.js';

type Args = Record<string, unknown>;
const ASSISTANT_PAGE = 25;

async function answer(
  ctx: Context,
  args: Args,
  compute: (ctx: Context, standing: Standing, input: never) => Promise<Report<unknown, unknown, unknown>>,
): Promise<Record<string, unknown>> {
  const { standing, report } = await onOneSnapshot(ctx, async (snapshot) => {
    const standing = await standingOf(snapshot, args);
    standing.limit = typeof args.limit === 'number' ? args.limit : ASSISTANT_PAGE;
    return { standing, report: await compute(snapshot, standing, args as never) };
  });
  const page = pageOf(report, standing);
  return { ...page.report, has_more: page.nextCursor !== null, next_cursor: page.nextCursor };
}

export const REPORT_TOOLS: Tool[] = [
  {
    name: 'aged_receivables',
    title: 'Aged receivables',
    description:
      'Who owes the business and since when: per client (or per invoice with group_by=invoice) what was open at as_of (default today), in buckets of days past due ("current", "1-30", …, "91+"), the credit each holds and the balance, in minor units of one currency. Totals cover every row; ledger_sequence repeats the answer exactly.',
    scope: 'reports:read',
    kind: 'read',
    idempotent: true,
    input: objectSchema(AgedReceivablesQuery),
    run: (ctx, args) => answer(ctx, args, agedReceivables as never),
  },
  {
    name: 'revenue_report',
    title: 'Revenue by period',
    description:
      'Net, tax and gross revenue per day, week (Monday first), month or quarter from `from` to `to` (YYYY-MM-DD, inclusive), accrual (invoices issued less credit notes) or cash (money applied to invoices), in minor units of one currency.',
    scope: 'reports:read',
    kind: 'read',
    idempotent: true,
    input: objectSchema(RevenueQuery),
    run: (ctx, args) => answer(ctx, args, revenue as never),
  },
];
