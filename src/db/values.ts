// Conversions between stored column values and API values, the same for every engine.
import { Lru } from '../core/lru.js';

/** JSON columns arrive as JSON text from both engines (see db/postgres/postgres.ts). */
export function fromJson<T>(value: string): T {
  return JSON.parse(value) as T;
}

/** The longest JSON text whose parsed value fromJsonShared keeps (a longer one is parsed every time). */
const SHARED_TEXT_MAX = 1024;
/** How many parsed texts fromJsonShared keeps, at most (the oldest go first): a few MB at the most. */
const SHARED_MAX = 4096;
const sharedValues = new Lru<string, unknown>(SHARED_MAX);

function deepFreeze(value: unknown): unknown {
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}

/**
 * fromJson for what is only read and written out (a presented object): the same text (an address, `{}` of
 * metadata), read again by a list polled or a client fetched again, gives the value parsed the first time,
 * frozen so that nobody can change what the next caller is given. Parsing them on every read was 4–5 % of a
 * 25-client list's CPU time, and each parsed object one more for the garbage collector.
 */
const EMPTY_OBJECT = Object.freeze({});

export function fromJsonShared<T>(value: string): T {
  // Most metadata is `{}`: no look-up (which hashes the text) for it.
  if (value === '{}') return EMPTY_OBJECT as T;
  // peek, not get: the oldest text goes first, and a hit does not reorder the map on the list's hot path.
  let parsed = sharedValues.peek(value);
  if (parsed === undefined) {
    parsed = deepFreeze(JSON.parse(value));
    if (value.length > SHARED_TEXT_MAX) return parsed as T;
    sharedValues.set(value, parsed);
  }
  return parsed as T;
}

/** Normalizes a timestamp filter to the stored form, so text comparison matches instant order. */
export function normalizeInstant(value: string): string;
export function normalizeInstant(value: string | undefined): string | undefined;
export function normalizeInstant(value: string | undefined): string | undefined {
  return value === undefined ? undefined : new Date(value).toISOString();
}
