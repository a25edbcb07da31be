// Conversions between stored column values and API values, the same for every engine.

/** JSON columns arrive as JSON text from both engines (see db/postgres.ts). */
export function fromJson<T>(value: string): T {
  return JSON.parse(value) as T;
}

/** Normalizes a timestamp filter to the stored form, so text comparison matches instant order. */
export function normalizeInstant(value: string): string;
export function normalizeInstant(value: string | undefined): string | undefined;
export function normalizeInstant(value: string | undefined): string | undefined {
  return value === undefined ? undefined : new Date(value).toISOString();
}
