// One import row written through the API's own routes (docs/api-contract.md §26, "Matching, never by name"): its
// cells made into the route's body, its references found in this account, its object matched by `id` or
// `external_id` only (never by a name), then created, updated or left unchanged; every write is a request to the
// app itself (`Dispatch`), so a row passes exactly the checks a request would.
import type { CsvRecord } from './import-csv.js';
import { type CellContext, cellValue, getPath, type KindSpec, setPath } from './import-fields.js';
import type { ImportKind, ImportOptions, RowError, RowOutcome } from './imports.schemas.js';

/** What a route answered a request the import made to the app itself. */
export interface Dispatched {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: unknown;
}

/**
 * One request to the app itself, in the operation scope the runner has entered; and where the worker has it,
 * `createMany`: several creates on one path written together, their ids, or undefined when any is refused or the
 * route has no such write (http/direct-route.ts): then each is made as a request to learn which.
 */
export type Dispatch = ((request: {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
  ifMatch?: string;
}) => Promise<Dispatched>) & {
  createMany?: (path: string, bodies: readonly unknown[]) => Promise<string[] | undefined>;
};

/** A row of the report: a CSV record, or an invoice's consecutive records (a row per line). */
export interface ImportRow {
  line: number;
  records: CsvRecord[];
}

export interface RowResult {
  line: number;
  outcome: RowOutcome;
  objectId: string | null;
  externalId: string | null;
  changedFields: string[];
  errors: RowError[];
}

export interface RowEnvironment {
  kind: ImportKind;
  spec: KindSpec;
  options: ImportOptions;
  /** The file's columns that name a field, with the field path each names. */
  columns: ReadonlyArray<[column: string, path: string]>;
  accountCurrency: string;
  customSchema: Record<string, unknown> | undefined;
  dispatch: Dispatch;
  /** `Dispatch.createMany` on the kind's path, in the runner's operation scope; absent where the worker has none. */
  createMany?: (bodies: readonly unknown[]) => Promise<string[] | undefined>;
  /** Reads made to find objects (the creator's read scopes are not required for them). */
  read: Dispatch;
  /**
   * Which objects of the kind hold the external ids of the transaction's rows (`null`: none), read in one query
   * before its first row and kept as its rows write (`keepHolders`), so that a row making a new object needs no
   * lookup of its own. Absent for an external id not read, and once a row may have moved one: then rows look up.
   */
  holders?: Map<string, string | null>;
}

type Json = Record<string, unknown>;

interface ErrorBody {
  error?: { code?: string; message?: string; details?: { field: string; message: string }[] };
}

function errorsOf(answer: Dispatched, prefix = ''): RowError[] {
  const error = (answer.body as ErrorBody | null)?.error ?? {};
  const code = error.code ?? 'INTERNAL_ERROR';
  if (error.details && error.details.length > 0)
    return error.details.map((detail) => ({ field: `${prefix}${detail.field}`, code, message: detail.message }));
  return [{ field: 'row', code, message: error.message ?? `the API answered ${answer.status}` }];
}

const dataOf = (answer: Dispatched): Json => ((answer.body as { data?: Json } | null)?.data ?? {}) as Json;

/** The body a row's cells make, the fields left empty, its references and `id`; or the cells' errors. */
function build(row: ImportRow, environment: RowEnvironment) {
  const { spec, columns, options } = environment;
  const first = row.records[0] as CsvRecord;
  const body: Json = {};
  const empty: string[] = [];
  const references: Record<string, string> = {};
  const errors: RowError[] = [];
  let id: string | undefined;
  const currencyColumn = columns.find(([, path]) => path === 'currency')?.[0];
  const context: CellContext = {
    options,
    currency: (currencyColumn && first.cells[currencyColumn]) || environment.accountCurrency,
    customSchema: environment.customSchema,
  };
  const put = (target: Json, path: string, cell: string) => {
    const converted = cellValue(spec, path, cell, context);
    if ('error' in converted) errors.push(converted.error);
    else setPath(target, path.startsWith('line.') ? path.slice('line.'.length) : path, converted.value);
  };
  for (const [column, path] of columns) {
    if (path.startsWith('line.')) continue;
    const cell = first.cells[column] ?? '';
    if (cell === '') {
      if (path !== 'id' && !(path in spec.references)) empty.push(path);
    } else if (path === 'id') id = cell;
    else if (path in spec.references) references[path] = cell;
    else put(body, path, cell);
  }
  const lines: Json[] = [];
  const lineReferences: Record<string, string>[] = [];
  if (spec.lines) {
    for (const [index, record] of row.records.entries()) {
      const line: Json = {};
      const named: Record<string, string> = {};
      for (const [column, path] of columns) {
        const cell = record.cells[column] ?? '';
        if (!path.startsWith('line.')) {
          if (index > 0 && cell !== (first.cells[column] ?? ''))
            errors.push({
              field: column,
              code: 'VALIDATION_ERROR',
              message: `line ${record.line} differs from the invoice’s first row (line ${first.line}) in ${column}`,
            });
          continue;
        }
        if (cell === '') continue;
        if (path in spec.references) named[path] = cell;
        else put(line, path, cell);
      }
      lines.push(line);
      lineReferences.push(named);
    }
    body.line_items = lines;
  }
  return { body, empty, references, lineReferences, id, errors };
}

/** The id of the one object a list finds by `filter=value` in this account, or undefined. */
async function findOne(read: Dispatch, list: string, filter: string, value: string): Promise<Json | undefined> {
  const answer = await read({ method: 'GET', path: `${list}?${filter}=${encodeURIComponent(value)}&limit=1` });
  if (answer.status !== 200) return undefined;
  return ((answer.body as { data?: Json[] }).data ?? [])[0];
}

/** Whether the answer's value differs from the row's (a line list compared by the fields the rows give). */
function differs(existing: Json, path: string, value: unknown): boolean {
  if (path === 'line_items' && Array.isArray(value)) {
    const current = (existing.line_items as Json[] | undefined) ?? [];
    if (current.length !== value.length) return true;
    return value.some((line, index) =>
      Object.entries(line as Json).some(
        ([key, given]) => JSON.stringify(current[index]?.[key] ?? null) !== JSON.stringify(given),
      ),
    );
  }
  return JSON.stringify(getPath(existing, path) ?? null) !== JSON.stringify(value ?? null);
}

/** The dotted paths of a body's values (objects other than metadata are followed into their fields). */
function leafPaths(body: Json, prefix = ''): string[] {
  return Object.entries(body).flatMap(([key, value]) =>
    value !== null && typeof value === 'object' && !Array.isArray(value) && key !== 'metadata'
      ? leafPaths(value as Json, `${prefix}${key}.`)
      : [`${prefix}${key}`],
  );
}

/**
 * The create's body of a row that `applyRow` would write by one `POST` and nothing else (no reference, no `id`, no
 * external id any object holds, no cell refused, no invoice to mark sent): such rows may be made together
 * (`createMany`) with the outcome `created`. Undefined for any other row.
 */
export function plainCreate(row: ImportRow, environment: RowEnvironment): Json | undefined {
  const { spec, holders } = environment;
  if (spec.lines || environment.createMany === undefined) return undefined;
  const built = build(row, environment);
  if (built.errors.length > 0 || built.id !== undefined || Object.keys(built.references).length > 0) return undefined;
  const externalId = built.body.external_id;
  if (externalId !== undefined && (typeof externalId !== 'string' || holders?.get(externalId) !== null))
    return undefined;
  return built.body;
}

/**
 * Writes one row through the routes and answers its outcome. A failed row may have written part of itself (an
 * invoice made, then refused as sent): the runner rolls its batch back and runs it again without the row.
 */
export async function applyRow(row: ImportRow, environment: RowEnvironment): Promise<RowResult> {
  const { spec, dispatch, read, options } = environment;
  const built = build(row, environment);
  const externalId = typeof built.body.external_id === 'string' ? built.body.external_id : null;
  const result = (outcome: RowOutcome, extra: Partial<RowResult> = {}): RowResult => ({
    line: row.line,
    outcome,
    objectId: null,
    externalId,
    changedFields: [],
    errors: [],
    ...extra,
  });
  const errors = [...built.errors];
  if (spec.lines && externalId === null)
    errors.push({
      field: 'external_id',
      code: 'VALIDATION_ERROR',
      message: 'external_id is required: it groups an invoice’s rows',
    });
  for (const [path, value] of Object.entries(built.references)) {
    const reference = spec.references[path];
    if (!reference) continue;
    const found = await findOne(read, reference.list, reference.filter, value);
    if (found) built.body[reference.field] = found.id;
    else errors.push({ field: path, code: 'NOT_FOUND', message: `${path} names nothing in this account` });
  }
  for (const [index, named] of built.lineReferences.entries())
    for (const [path, value] of Object.entries(named)) {
      const reference = spec.references[path];
      const line = (built.body.line_items as Json[])[index];
      if (!reference || !line) continue;
      const found = await findOne(read, reference.list, reference.filter, value);
      if (found) line[reference.field] = found.id;
      else errors.push({ field: path, code: 'NOT_FOUND', message: `${path} names nothing in this account` });
    }
  let existing: Json | undefined;
  if (built.id !== undefined) {
    const answer = await read({ method: 'GET', path: `${spec.path}/${encodeURIComponent(built.id)}` });
    if (answer.status === 200) existing = dataOf(answer);
    else errors.push({ field: 'id', code: 'NOT_FOUND', message: `id names no ${environment.kind} of this account` });
  } else if (externalId !== null && environment.holders?.get(externalId) !== null)
    existing = await findOne(read, spec.path, 'external_id', externalId);
  if (errors.length > 0) return result('failed', { errors });

  if (!existing) {
    const created = await dispatch({ method: 'POST', path: spec.path, body: built.body });
    if (created.status >= 400) return result('failed', { errors: errorsOf(created) });
    const objectId = dataOf(created).id as string;
    if (options.mark_sent && environment.kind === 'invoice') {
      const sent = await dispatch({ method: 'PUT', path: `${spec.path}/${objectId}`, body: { status: 'sent' } });
      if (sent.status >= 400) return result('failed', { errors: errorsOf(sent) });
    }
    return result('created', { objectId });
  }

  const objectId = existing.id as string;
  if (environment.kind === 'invoice' && existing.status !== 'draft')
    return result('failed', {
      objectId,
      errors: [
        {
          field: 'external_id',
          code: 'INVALID_STATE',
          message: `the invoice is ${String(existing.status)}: an import updates drafts only`,
        },
      ],
    });
  if (options.empty_cells === 'clear') for (const path of built.empty) setPath(built.body, path, null);
  const changed = leafPaths(built.body).filter((path) => differs(existing as Json, path, getPath(built.body, path)));
  const update: Json = {};
  for (const path of changed) {
    const top = path.split('.')[0] as string;
    const value = built.body[top];
    // An object given in part (`address.city`) keeps its other fields: the PUT sends it whole.
    update[top] =
      value !== null && typeof value === 'object' && !Array.isArray(value) && top !== 'metadata'
        ? { ...((existing[top] as Json | null) ?? {}), ...(value as Json) }
        : value;
  }
  const markSent = options.mark_sent && environment.kind === 'invoice';
  if (changed.length === 0 && !markSent) return result('unchanged', { objectId });
  if (changed.length > 0) {
    const updated = await dispatch({ method: 'PUT', path: `${spec.path}/${objectId}`, body: update });
    if (updated.status >= 400) return result('failed', { objectId, errors: errorsOf(updated) });
  }
  if (markSent) {
    const sent = await dispatch({ method: 'PUT', path: `${spec.path}/${objectId}`, body: { status: 'sent' } });
    if (sent.status >= 400) return result('failed', { objectId, errors: errorsOf(sent) });
    changed.push('status');
  }
  return result('updated', { objectId, changedFields: changed });
}

/**
 * The holders after `result`: a row written with an external id holds it; a failed row (which may have written part
 * of itself on an engine without savepoints) or one that moved an object's external id leaves them unknown.
 */
export function keepHolders(environment: RowEnvironment, result: RowResult): void {
  const { holders } = environment;
  if (!holders) return;
  if (result.outcome === 'failed' || result.changedFields.includes('external_id')) environment.holders = undefined;
  else if (result.externalId !== null && result.objectId !== null) holders.set(result.externalId, result.objectId);
}
