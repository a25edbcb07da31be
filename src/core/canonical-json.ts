// RFC 8785 (JSON Canonicalization Scheme): the one serialization of a JSON value that a hash can bind (a
// quote's signed content, docs/api-contract.md §30). Members sorted by their names' UTF-16 code units, no
// whitespace, strings and numbers as ECMAScript's JSON.stringify writes them (RFC 8785 §3.2.2 adopts both).
// Written here: the npm `canonicalize` package needs a newer Node than BMS supports.

/** The canonical JSON text of `value`; throws on what JSON cannot hold (non-finite numbers, undefined, …). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonical JSON has no NaN or Infinity');
    return JSON.stringify(value);
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
    // The default sort compares UTF-16 code units, which is RFC 8785 §3.2.3's order.
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, item]) => `${JSON.stringify(name)}:${canonicalJson(item)}`).join(',')}}`;
  }
  throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
}
