// Cells of the CSV files BMS reads and writes. The one rule for text cells in every CSV that BMS writes (docs/api-contract.md §26, §32): a cell a spreadsheet
// would read as a formula gets a leading `'`, and so does one that already starts with `'` and such a character,
// so that an import dropping one `'` (modules/imports) gives the text back exactly.
const FORMULA_START = /^['=+\-@\t\r]/;
const FORMULA = /^[=+\-@\t\r]/;

/** `=SUM(A1)` → `'=SUM(A1)`; `'=x` → `''=x`. */
export function escapeFormula(text: string): string {
  if (FORMULA.test(text) || (text.startsWith("'") && FORMULA_START.test(text.slice(1)))) return `'${text}`;
  return text;
}

const FORMULA_ESCAPED = /^'['=+\-@\t\r]/;

/** §32: an import drops one leading `'` where the next character is `=`, `+`, `-`, `@`, tab, CR or `'`. */
export function unescapeFormula(cell: string): string {
  return FORMULA_ESCAPED.test(cell) ? cell.slice(1) : cell;
}

/** Digits after the decimal point of a currency's minor unit (ISO 4217, as the runtime's tables say). */
export function minorDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** 123450 minor units with 2 digits → "1234.50", computed on the digits, never through a float. */
export function decimalText(amount: number, digits: number): string {
  const text = String(Math.abs(amount)).padStart(digits + 1, '0');
  const decimal = digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`;
  return amount < 0 ? `-${decimal}` : decimal;
}

/** "123.45" with 2 digits → 12345, on the digits (never a float); undefined when it has more digits than that. */
export function minorUnits(text: string, digits: number): number | undefined {
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? text.slice(1) : text).split('.');
  if (fraction.length > digits) return undefined;
  const value = BigInt(whole + fraction.padEnd(digits, '0'));
  return Number(negative ? -value : value);
}

/**
 * csv-stringify's options for every CSV BMS writes: CRLF between records (RFC 4180), and a cell holding a line
 * break quoted whatever the break (csv-stringify quotes only the record delimiter itself, so a lone LF in a note
 * would otherwise split the record for a reader).
 */
export const CSV_WRITE_OPTIONS = { record_delimiter: '\r\n', quoted_match: /[\r\n]/ } as const;
