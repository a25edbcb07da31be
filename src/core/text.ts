// Text both databases store exactly as given: no NUL character (PostgreSQL's text cannot hold it) and no
// lone UTF-16 surrogate (no character at all: PostgreSQL's jsonb refuses it, SQLite would store other bytes).
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}
