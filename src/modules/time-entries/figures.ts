// An entry's figures (docs/api-contract.md §29), exact: integer arithmetic with §6's rounding (halves up).
import { multiplyDivideRounded } from '../documents/index.js';

export const BILLING_INCREMENTS = [3, 6, 12, 15, 30, 60] as const;

export interface Figures {
  duration_seconds: number;
  cost_amount: number;
  billed_hours: number;
  billable_amount: number;
}

/** Whole seconds between two instants less the break (never below 0). */
export function durationSeconds(startedAt: string, endedAt: string, breakMinutes: number): number {
  const span = Math.round((Date.parse(endedAt) - Date.parse(startedAt)) / 1000);
  return Math.max(0, span - breakMinutes * 60);
}

/**
 * Billed hours in hundredths: the duration rounded halves up to whole increments. Every increment is a multiple of
 * 3 minutes, that is of 0.05 h, so the hundredths are exact: increments × minutes × 100 / 60.
 */
export function billedHundredths(seconds: number, incrementMinutes: number): bigint {
  const increment = BigInt(incrementMinutes * 60);
  const increments = multiplyDivideRounded(BigInt(seconds), 1n, increment);
  return (increments * BigInt(incrementMinutes) * 5n) / 3n;
}

export function figuresOf(
  entry: { started_at: string; ended_at: string; break_minutes: number; billable: boolean },
  hourlyCost: number,
  hourlyRate: number,
  incrementMinutes: number,
  /** The billed hours of a billed entry, frozen when it was billed (§32: then they no longer follow the increment). */
  frozenHundredths?: bigint,
): Figures {
  const seconds = durationSeconds(entry.started_at, entry.ended_at, entry.break_minutes);
  const hundredths = frozenHundredths ?? billedHundredths(seconds, incrementMinutes);
  return {
    duration_seconds: seconds,
    cost_amount: Number(multiplyDivideRounded(BigInt(seconds), BigInt(hourlyCost), 3600n)),
    billed_hours: Number(hundredths) / 100,
    billable_amount: entry.billable ? Number(multiplyDivideRounded(hundredths, BigInt(hourlyRate), 100n)) : 0,
  };
}
