// What every report shares (docs/api-contract.md §24, "Common"): one currency, the account's zone, the ledger
// sequence it is computed at (the latest, `?ledger_sequence=N`, or the one a cursor pins), from–to ranges of at
// most ten years, and paging by a cursor over rows that are the same at the same sequence.
import { Temporal } from '@js-temporal/polyfill';
import { AppError, fieldError, validationError } from '../../core/errors.js';
import { localDate } from '../../core/time.js';
import type { Context } from '../../kernel/context.js';
import { findAccount } from '../accounts/index.js';
import * as repository from './reports.repository.js';
import type { OtherCurrency, Report } from './reports.schemas.js';
import { REPORT_PAGE_SIZE } from './reports.schemas.js';

export interface CommonInput {
  limit?: number | undefined;
  cursor?: string | undefined;
  ledger_sequence?: number | undefined;
  currency?: string | undefined;
}

/** Where a report stands: the books at `sequence`, in `currency`, dated in `timezone`. */
export interface Standing {
  currency: string;
  timezone: string;
  sequence: number;
  today: string;
  /** The rows already answered (from the cursor) and how many this answer holds: a JSON page's, or a CSV's all. */
  offset: number;
  limit: number;
  computedAt: string;
}

/** The cursor: the sequence it pins and the rows already answered. Opaque to callers. */
function encodeCursor(sequence: number, offset: number): string {
  return Buffer.from(`r1:${sequence}:${offset}`).toString('base64url');
}

function decodeCursor(cursor: string): { sequence: number; offset: number } {
  const match = /^r1:(\d{1,15}):(\d{1,7})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw fieldError('cursor', 'is not a cursor this report gave');
  return { sequence: Number(match[1]), offset: Number(match[2]) };
}

export async function standingOf(ctx: Context, input: CommonInput): Promise<Standing> {
  const account = await findAccount(ctx.db, ctx.accountId);
  const timezone = account?.timezone ?? 'UTC';
  const latest = await repository.lastSequence(ctx.db, ctx.accountId);
  const pinned = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
  const sequence = pinned?.sequence ?? input.ledger_sequence ?? latest;
  if (sequence > latest)
    throw fieldError(
      pinned ? 'cursor' : 'ledger_sequence',
      `is beyond the ledger's latest sequence, ${latest}: a report answers only books that exist`,
    );
  const now = ctx.clock.now();
  return {
    currency: input.currency ?? account?.currency ?? 'USD',
    timezone,
    sequence,
    today: localDate(now, timezone),
    offset: pinned?.offset ?? 0,
    limit: input.limit ?? REPORT_PAGE_SIZE,
    computedAt: now.toISOString(),
  };
}

/** Checks a from–to range: from ≤ to, at most ten years (contract §32). */
export function checkRange(from: string, to: string): void {
  if (to < from) throw fieldError('to', 'must be on or after from');
  const limit = Temporal.PlainDate.from(from).add({ years: 10 }).toString();
  if (to >= limit) throw fieldError('to', 'must be less than 10 years after from');
}

export interface PagedReport<P, T, R> {
  report: Report<P, T, R>;
  nextCursor: string | null;
  limit: number;
}

/** Reports whose rows are already the standing's page (read so from the database, or cut before their labels). */
const pagedInDatabase = new WeakMap<object, number>();

/**
 * Marks a report whose rows are the standing's page; `rowCount` counts its rows in all (or at least one past the
 * page's end when more follow).
 */
export function pagedInSql<P, T, R>(report: Report<P, T, R>, rowCount: number): Report<P, T, R> {
  pagedInDatabase.set(report, rowCount);
  return report;
}

/** The report's rows in all (at least as many as it is known to have, for a report paged in the database). */
export function rowCountOf(report: Report<unknown, unknown, unknown>): number {
  return pagedInDatabase.get(report) ?? report.rows.length;
}

/** One JSON page of a report's rows; the totals stay those of every row. */
export function pageOf<P, T, R>(report: Report<P, T, R>, standing: Standing): PagedReport<P, T, R> {
  const limit = standing.limit;
  const end = standing.offset + limit;
  const paged = pagedInDatabase.has(report);
  const more = end < rowCountOf(report as Report<unknown, unknown, unknown>);
  return {
    report: paged ? report : { ...report, rows: report.rows.slice(standing.offset, end) },
    nextCursor: more ? encodeCursor(standing.sequence, end) : null,
    limit,
  };
}

/** The frame every report answers in. */
export function reportOf<P, T, R>(
  type: Report<P, T, R>['type'],
  standing: Standing,
  parameters: P,
  others: OtherCurrency[],
  totals: T,
  rows: R[],
): Report<P, T, R> {
  return {
    object: 'report',
    type,
    currency: standing.currency,
    timezone: standing.timezone,
    ledger_sequence: standing.sequence,
    computed_at: standing.computedAt,
    parameters,
    other_currencies: others,
    totals,
    rows,
  };
}

export function notFoundClient(id: string): AppError {
  return new AppError('NOT_FOUND', `No client with id '${id}' exists.`);
}

export { validationError };
