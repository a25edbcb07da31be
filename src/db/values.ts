// Conversions between stored column values and API values, the same for every engine.
import type { Timestamp } from './types.js';

export function toIso(value: Timestamp): string;
export function toIso(value: Timestamp | null): string | null;
export function toIso(value: Timestamp | null): string | null {
  if (value === null) return null;
  return value instanceof Date ? value.toISOString() : value;
}

/** JSON columns arrive as text from SQLite and as parsed values from PostgreSQL's jsonb. */
export function fromJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** Normalizes a timestamp filter to the stored form, so text comparison matches instant order. */
export function normalizeInstant(value: string | undefined): string | undefined {
  return value === undefined ? undefined : new Date(value).toISOString();
}
