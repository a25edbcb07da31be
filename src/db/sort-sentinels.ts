// Values that stand for "empty" when sorting by a nullable column: they sort before every real value and
// are valid literals of the column's type on both engines. Shared by the indexes and the list queries,
// which must use the very same expression for the index to serve them.
export const SORT_SENTINELS = {
  timestamp: '0001-01-01T00:00:00.000Z',
  date: '0001-01-01',
} as const;

/** The ORDER BY expression for a nullable column, the same text as in its index. */
export function coalesceSort(column: string, kind: keyof typeof SORT_SENTINELS): string {
  return `coalesce(${column}, '${SORT_SENTINELS[kind]}')`;
}
