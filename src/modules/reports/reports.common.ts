// What every report shares (docs/api-contract.md §24, "Common"): one currency, the account's zone, the ledger
// sequence it is computed at (the latest, `?ledger_sequence=N`, or the one a cursor pins), from–to ranges of at
// most ten years, and paging by a keyset cursor over rows that are the same at the same sequence: the cursor names
// the last row answered by its place in the report's order, never by a count of rows before it (§5).
import { Temporal } from '@js-temporal/polyfill';
import { AppError, fieldError, validationError } from '../../core/errors.js';
import { localDate } from '../../core/time.js';
import { inReadSnapshot } from '../../db/index.js';
import type { Context } from '../../kernel/context.js';
import { findAccount } from '../accounts/index.js';
import { lastEntrySequence } from '../ledger/index.js';
import type { OtherCurrency, Report } from './reports.schemas.js';
import { REPORT_PAGE_SIZE } from './reports.schemas.js';

export interface CommonInput {
  limit?: number | undefined;
  cursor?: string | undefined;
  ledger_sequence?: number | undefined;
  currency?: string | undefined;
}

/** A row's place in its report's order: the values the order compares, in order (the last one sets ties apart). */
export type RowKey = readonly (string | number)[];

/** What each value of a report's row key is, so that a cursor's key is checked before it is compared or queried. */
export type KeyKind = 'text' | 'date' | 'integer' | 'number';

/** Where a report stands: the books at `sequence`, in `currency`, dated in `timezone`. */
export interface Standing {
  currency: string;
  timezone: string;
  sequence: number;
  today: string;
  /** The key of the last row already answered (from the cursor; unchecked until `positionOf`), or null. */
  after: readonly unknown[] | null;
  /** How many rows this answer holds at most: a JSON page's, or a CSV's all (one more, to know it is too many). */
  limit: number;
  computedAt: string;
}

const CURSOR_VERSION = 'r2';

/** The cursor: the sequence it pins and the key of the last row answered. Opaque to callers. */
function encodeCursor(sequence: number, after: RowKey): string {
  return Buffer.from(JSON.stringify([CURSOR_VERSION, sequence, ...after])).toString('base64url');
}

function decodeCursor(cursor: string): { sequence: number; after: unknown[] } {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    decoded = null;
  }
  if (
    !Array.isArray(decoded) ||
    decoded[0] !== CURSOR_VERSION ||
    !Number.isSafeInteger(decoded[1]) ||
    decoded[1] < 0 ||
    decoded.length > 8
  )
    throw fieldError('cursor', 'is not a cursor this report gave');
  return { sequence: decoded[1], after: decoded.slice(2) };
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `value` is a key value of `kind`: a date that exists (PostgreSQL refuses 2026-02-30 with an error). */
function isKeyValue(kind: KeyKind, value: unknown): boolean {
  switch (kind) {
    case 'text':
      return typeof value === 'string' && value.length <= 1000;
    case 'integer':
      return Number.isSafeInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'date':
      return (
        typeof value === 'string' &&
        DATE.test(value) &&
        value >= '0001-01-01' &&
        new Date(`${value}T00:00:00.000Z`).toISOString().slice(0, 10) === value
      );
  }
}

/** The cursor's row key, checked against the report's kinds (another report's cursor is a 422), or undefined. */
export function positionOf(standing: Standing, kinds: readonly KeyKind[]): RowKey | undefined {
  const after = standing.after;
  if (after === null) return undefined;
  if (after.length !== kinds.length || kinds.some((kind, index) => !isKeyValue(kind, after[index])))
    throw fieldError('cursor', 'is not a cursor this report gave');
  return after as RowKey;
}

/**
 * Runs a report on one read snapshot of the database: its standing (the latest sequence) and every piece it reads, a
 * turn of the event loop apart, see the same books while writers go on (PostgreSQL: a read-only REPEATABLE READ
 * transaction; SQLite: a read transaction on a connection of its own). Inside a transaction, on that transaction.
 */
export function onOneSnapshot<T>(ctx: Context, work: (ctx: Context) => Promise<T>): Promise<T> {
  if (ctx.db.isTransaction) return work(ctx);
  return inReadSnapshot(ctx.db, (db) => work({ ...ctx, db }));
}

export async function standingOf(ctx: Context, input: CommonInput): Promise<Standing> {
  const account = await findAccount(ctx.db, ctx.accountId);
  const timezone = account?.timezone ?? 'UTC';
  const latest = await lastEntrySequence(ctx.db, ctx.accountId);
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
    after: pinned?.after ?? null,
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

/** Orders row keys value by value: numbers as numbers, text by UTF-16 code units (as every engine's `<` on ASCII). */
export function compareKeys(a: RowKey, b: RowKey): number {
  for (let index = 0; index < a.length; index++) {
    const left = a[index]!;
    const right = b[index]!;
    if (left < right) return -1;
    if (left > right) return 1;
  }
  return 0;
}

/**
 * The page of rows a report computed whole (a few thousand at most: periods, rates, clients, jobs), in the order of
 * their keys: the rows after the cursor's key (found by a binary search), at most `limit` of them.
 */
export function pageRows<R>(
  standing: Standing,
  rows: readonly R[],
  keyOf: (row: R) => RowKey,
  kinds: readonly KeyKind[],
): { rows: R[]; next: RowKey | null } {
  const keyed = rows.map((row) => ({ row, key: keyOf(row) })).sort((a, b) => compareKeys(a.key, b.key));
  const after = positionOf(standing, kinds);
  let start = 0;
  if (after) {
    let high = keyed.length;
    while (start < high) {
      const middle = (start + high) >> 1;
      if (compareKeys(keyed[middle]!.key, after) <= 0) start = middle + 1;
      else high = middle;
    }
  }
  const page = keyed.slice(start, start + standing.limit);
  const more = start + standing.limit < keyed.length;
  return { rows: page.map(({ row }) => row), next: more ? page[page.length - 1]!.key : null };
}

/** The key after which each report's next page starts (null on the last page), kept beside the report. */
const nextKeys = new WeakMap<object, RowKey | null>();

/** Marks a report whose rows are the standing's page, and the key of its last row when more follow. */
export function paged<P, T, R>(report: Report<P, T, R>, next: RowKey | null): Report<P, T, R> {
  nextKeys.set(report, next);
  return report;
}

export interface PagedReport<P, T, R> {
  report: Report<P, T, R>;
  nextCursor: string | null;
  limit: number;
}

/** One JSON page of a report's rows (the totals stay those of every row) and the cursor of the next. */
export function pageOf<P, T, R>(report: Report<P, T, R>, standing: Standing): PagedReport<P, T, R> {
  const next = nextKeys.get(report) ?? null;
  return {
    report,
    nextCursor: next === null ? null : encodeCursor(standing.sequence, next),
    limit: standing.limit,
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
