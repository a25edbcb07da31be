// An export's rows as CSV (docs/api-contract.md §26, "Export"): the columns come from the list's object schema, so
// every row has the same ones whatever it holds: an object's fields dotted (`address.city`), `custom_fields.<key>`
// for the account's fields of the kind, `metadata` and other nested values as JSON, lists of ids or tags joined by
// `|`, and for quotes and invoices a row per line (`line.<field>`), the document's columns repeated: the import's
// columns, so that an export imports again. Every text cell is formula-escaped (§32).
import { stringify } from 'csv-stringify/sync';
import { CSV_WRITE_OPTIONS, escapeFormula } from '../../core/csv-cells.js';

type Json = Record<string, unknown>;

function unwrap(schema: Json | undefined): Json | undefined {
  if (!schema) return undefined;
  const options = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (options) return unwrap(options.find((option) => option.type !== 'null'));
  return schema;
}

function typeOf(schema: Json | undefined): string | undefined {
  const type = schema?.type;
  if (Array.isArray(type)) return type.find((name) => name !== 'null') as string | undefined;
  return type as string | undefined;
}

const propertiesOf = (schema: Json | undefined): Json => (unwrap(schema)?.properties as Json | undefined) ?? {};

/** The CSV columns of a list's objects (`itemSchema`), its custom field keys, and its lines if it has them. */
export function csvColumns(itemSchema: Json, customKeys: readonly string[], lines: boolean): string[] {
  const columns: string[] = [];
  for (const [key, property] of Object.entries(propertiesOf(itemSchema))) {
    const schema = unwrap(property as Json);
    if (lines && key === 'line_items') continue;
    if (key === 'custom_fields') for (const custom of customKeys) columns.push(`custom_fields.${custom}`);
    else if (key !== 'metadata' && typeOf(schema) === 'object' && schema?.properties)
      for (const child of Object.keys(schema.properties as Json)) columns.push(`${key}.${child}`);
    else columns.push(key);
  }
  if (lines) {
    const items = unwrap(propertiesOf(itemSchema).line_items as Json | undefined)?.items as Json | undefined;
    for (const key of Object.keys(propertiesOf(items))) columns.push(`line.${key}`);
  }
  return columns;
}

function valueAt(source: unknown, path: string): unknown {
  let at = source;
  for (const part of path.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Json)[part];
  }
  return at;
}

/** One cell: text escaped, numbers and booleans as written, lists of scalars joined by `|`, the rest as JSON. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return escapeFormula(value);
  if (Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null))
    return escapeFormula(value.map((item) => (item === null ? '' : String(item))).join('|'));
  return escapeFormula(JSON.stringify(value));
}

/** The CSV text of one object: a record, or one per line of a quote or invoice (one with empty lines if none). */
export function csvRecords(item: unknown, columns: readonly string[], lines: boolean): string {
  const own = columns.filter((column) => !column.startsWith('line.'));
  const lineColumns = columns.filter((column) => column.startsWith('line.'));
  const cells = own.map((column) => csvCell(valueAt(item, column)));
  if (!lines) return stringify([cells], CSV_WRITE_OPTIONS);
  const items = (valueAt(item, 'line_items') as unknown[] | undefined) ?? [];
  const records = (items.length === 0 ? [undefined] : items).map((line) => [
    ...cells,
    ...lineColumns.map((column) => csvCell(line === undefined ? undefined : valueAt(line, column.slice(5)))),
  ]);
  return stringify(records, CSV_WRITE_OPTIONS);
}

/** The header record, after the UTF-8 byte order mark (a spreadsheet then reads the file as UTF-8). */
export function csvHeader(columns: readonly string[]): string {
  return `\uFEFF${stringify([[...columns]], CSV_WRITE_OPTIONS)}`;
}
