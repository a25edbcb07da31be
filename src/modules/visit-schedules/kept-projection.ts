// The projected occurrences availability counts as commitments (docs/api-contract.md §28, §18), from a kept copy
// (docs/architecture.md "Kept copies"): per schedule, the instants and keys of its occurrences in blocks of 7
// days aligned on the epoch, kept with the row's fields they follow from (recurrence, durations, pause). Every
// query reads the schedules, their exdates and their visits afresh; the copy is used only while the row read now
// has the same fields, so an edit, a pause, a split (a new zone or time), a write by another process or by hand
// is seen at the next query. What may change without the row (exdates, visits made, moved or canceled, the job's
// property, the template's assignees, the status) is never kept. The zone's rules are the runtime's, fixed
// while it runs. A query answers exactly what the calendar's `include_projected` (projection.ts) would.
import { setImmediate as yieldTurn } from 'node:timers/promises';
import { Temporal } from '@js-temporal/polyfill';
import { Lru } from '../../core/lru.js';
import { fromJsonShared, readsHoldTheLoop } from '../../db/index.js';
import type { Context } from '../../kernel/context.js';
import { durationsOf, inPause, ruleOf } from './materialize.js';
import { timesOf } from './projection.js';
import { dayOf, fitsYearsOnDay, ruleDays } from './recurrence-expansion.js';
import { occurrenceKey } from './recurrence-parts.js';
import * as repository from './visit-schedules.repository.js';
import type { Template } from './visit-schedules.schemas.js';

const HOUR = 3_600_000;
const BLOCK = 7 * 24 * HOUR;
/** Outside a transaction, other requests run between every this many schedules. */
const TURN = 100;

/** A projected occurrence as a commitment of the members its schedule's template names. */
export interface ProjectedCommitment {
  schedule_id: string;
  occurrence_key: string;
  /** Epoch milliseconds. */
  start: number;
  end: number;
  property_id: string | null;
  assignee_ids: string[];
}

interface Occurrence {
  start: number;
  end: number;
  key: string;
}

/** What a schedule's kept blocks follow from: the copy is used only while the row read now has these. */
type Stamp = Pick<
  repository.KeptScheduleRow,
  'recurrence' | 'duration_minutes' | 'duration_days' | 'paused_from' | 'paused_until'
>;

interface KeptSchedule extends Stamp {
  /** Block number (epoch ms ÷ 7 days): the occurrences starting in it, neither paused nor beyond the years. */
  blocks: Map<number, Occurrence[]>;
}

/** The budget counts blocks: about 50 per schedule for a thousand schedules asked a month at a time. */
const kept = new Lru<string, KeptSchedule>(50_000);

const sameStamp = (a: Stamp, b: Stamp) =>
  a.recurrence === b.recurrence &&
  Number(a.duration_minutes) === Number(b.duration_minutes) &&
  Number(a.duration_days) === Number(b.duration_days) &&
  a.paused_from === b.paused_from &&
  a.paused_until === b.paused_until;

/** The schedule's kept blocks, emptied when the row's fields are no longer the ones they were made from. */
function keptOf(row: repository.KeptScheduleRow): KeptSchedule {
  // peek, not get: a hit does not reorder the map, a thousand times a span (the oldest schedule goes first).
  const found = kept.peek(row.id);
  if (found !== undefined && sameStamp(found, row)) return found;
  const fresh: KeptSchedule = {
    recurrence: row.recurrence,
    duration_minutes: row.duration_minutes,
    duration_days: row.duration_days,
    paused_from: row.paused_from,
    paused_until: row.paused_until,
    blocks: new Map(),
  };
  kept.set(row.id, fresh, 0);
  return fresh;
}

/** The local days (as day numbers) a block's starts may fall on in a zone, a day each side: pure, so kept. */
const zoneDays = new Lru<string, [number, number]>(10_000);
function daysOfBlock(zone: string, block: number): [number, number] {
  const key = `${zone}|${block}`;
  let days = zoneDays.get(key);
  if (days === undefined) {
    const local = (ms: number) => Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone);
    days = [dayOf(local(block * BLOCK)) - 1, dayOf(local((block + 1) * BLOCK)) + 1];
    zoneDays.set(key, days);
  }
  return days;
}

/** The occurrences of a schedule starting in a block, neither paused nor outside the years 0001–9999, by start. */
function occurrencesIn(row: repository.KeptScheduleRow, block: number): Occurrence[] {
  const rule = ruleOf(row, []);
  const durations = durationsOf(row);
  const [fromDay, toDay] = daysOfBlock(rule.timezone, block);
  const found = ruleDays(rule, fromDay, toDay);
  const [lo, hi] = [block * BLOCK, (block + 1) * BLOCK];
  const occurrences: Occurrence[] = [];
  for (const [at, date] of found.dates.entries()) {
    const day = found.days[at] as number;
    if (inPause(row, date) || !fitsYearsOnDay(rule, durations, date, day)) continue;
    const { start, end } = timesOf(rule, durations, date, day);
    if (start >= lo && start < hi) occurrences.push({ start, end, key: occurrenceKey(rule, date) });
  }
  return occurrences.sort((a, b) => a.start - b.start);
}

/** How long before a window an occurrence of the schedule may start and still overlap it. */
const lookbackOf = (row: repository.KeptScheduleRow) =>
  row.duration_days !== null
    ? (Number(row.duration_days) * 24 + 2) * HOUR
    : Number(row.duration_minutes) * 60_000 + HOUR;

/**
 * What one query reads of its members' schedules (the rows and their exdates), once however many spans of its
 * window it projects: pass the same object for every span of one query, and for one query only.
 */
export interface ScheduleReads {
  schedules?: repository.KeptScheduleRow[];
  exdates?: Map<string, string[]>;
  /** Each schedule's template's assignees, parsed once per query (by schedule id). */
  assignees?: Map<string, string[]>;
}

/**
 * The projected occurrences of the open schedules naming any of `memberIds` that overlap [from, to) and have no
 * visit, the first `limit` by (start, schedule id): the calendar's projection of the same window, as commitments;
 * each with its job's property, or (without `places`: no travel to count) property_id null.
 */
export async function projectedCommitments(
  ctx: Context,
  memberIds: string[],
  window: { from: number; to: number },
  { limit, places }: { limit: number; places: boolean },
  reads: ScheduleReads = {},
): Promise<ProjectedCommitment[]> {
  if (memberIds.length === 0) return [];
  // Where each read holds the event loop (SQLite), other requests run between them.
  const readTurn = readsHoldTheLoop(ctx.db) ? yieldTurn : () => undefined;
  if (reads.schedules === undefined) {
    reads.schedules = await repository.schedulesToKeep(ctx.db, ctx.accountId, memberIds, places);
    await readTurn();
  }
  const schedules = reads.schedules;
  if (schedules.length === 0) return [];
  if (reads.exdates === undefined) {
    reads.exdates = await repository.exdatesOf(ctx.db, ctx.accountId, { members: memberIds });
    await readTurn();
  }
  const exdates = reads.exdates;
  const inTurns = !ctx.db.isTransaction;
  // The candidates as two arrays side by side (a row and an occurrence at each index), with their keys: no object
  // per candidate, and no list made again from the candidates to read them.
  const rows: repository.KeptScheduleRow[] = [];
  const occurrencesFound: Occurrence[] = [];
  const keys: string[] = [];
  for (let index = 0; index < schedules.length; index++) {
    if (inTurns && index % TURN === TURN - 1) await yieldTurn();
    const row = schedules[index] as repository.KeptScheduleRow;
    const copy = keptOf(row);
    const skipped = exdates.get(row.id) ?? [];
    const last = Math.floor((window.to - 1) / BLOCK);
    for (let block = Math.floor((window.from - lookbackOf(row)) / BLOCK); block <= last; block++) {
      let occurrences = copy.blocks.get(block);
      if (occurrences === undefined) {
        occurrences = occurrencesIn(row, block);
        copy.blocks.set(block, occurrences);
        if (kept.peek(row.id) === copy) kept.resize(row.id, copy.blocks.size);
      }
      for (const occurrence of occurrences)
        if (occurrence.start < window.to && occurrence.end > window.from && !skipped.includes(occurrence.key)) {
          rows.push(row);
          occurrencesFound.push(occurrence);
          keys.push(occurrence.key);
        }
    }
  }
  if (rows.length === 0) return [];
  await readTurn();
  const made = await repository.materializedAmong(ctx.db, { accountId: ctx.accountId, members: memberIds }, keys);
  const commitments: ProjectedCommitment[] = [];
  // Each schedule's template is read once a query, however many of its occurrences the window holds.
  reads.assignees ??= new Map<string, string[]>();
  const assignees = reads.assignees;
  for (let at = 0; at < rows.length; at++) {
    const row = rows[at] as repository.KeptScheduleRow;
    const occurrence = occurrencesFound[at] as Occurrence;
    if (made.size === 0 || !made.has(`${row.id}|${occurrence.key}`)) {
      let assigneeIds = assignees.get(row.id);
      if (assigneeIds === undefined) {
        assigneeIds = fromJsonShared<Template>(row.template).assignee_ids;
        assignees.set(row.id, assigneeIds);
      }
      commitments.push({
        schedule_id: row.id,
        occurrence_key: occurrence.key,
        start: occurrence.start,
        end: occurrence.end,
        property_id: row.property_id,
        assignee_ids: assigneeIds,
      });
    }
  }
  commitments.sort(
    (a, b) => a.start - b.start || (a.schedule_id < b.schedule_id ? -1 : a.schedule_id > b.schedule_id ? 1 : 0),
  );
  return commitments.slice(0, limit);
}
