// The imports worker's work on one import (docs/api-contract.md §26, "Two passes"): validating runs every row
// through the routes, 100 rows a transaction that is then rolled back (a dry run's outcomes, or the check that
// `on_error: abort` needs), giving the writer back between two; running commits 500 rows a transaction together
// with the report's rows, the counts and `progress_line`, so a restart or `kill -9` resumes after the last
// committed batch and applies no row twice.
// A batch in which a row fails is rolled back and run again without it: a row is whole or absent.
import { unescapeFormula } from '../../core/csv-cells.js';
import { failureEndsTransaction, fromJson, oneLargeWriteAtATime, survivingFailure } from '../../db/index.js';
import type { ImportReportRow } from '../../db/types.js';
import type { AuthContext } from '../../kernel/auth-context.js';
import { type Context, type Runtime, inTransaction } from '../../kernel/context.js';
import { type OperationScope, runAsOperation } from '../../kernel/operation-scope.js';
import { recordEvent } from '../events/index.js';
import { findExternalIdHolders } from '../shared/index.js';
import { type CsvRecord, FileProblem, readRecords } from './import-csv.js';
import { isTarget, KIND_SPECS } from './import-fields.js';
import { type ImportCreator, NO_COUNTS, optionsOf, presentImport } from './import-present.js';
import {
  applyRow,
  type Dispatch,
  type ImportRow,
  keepHolders,
  plainCreate,
  type RowEnvironment,
  type RowResult,
} from './import-rows.js';
import * as repository from './imports.repository.js';
import type { ImportCounts, ImportKind } from './imports.schemas.js';

/** Rows a transaction of the running pass commits (§26). */
export const BATCH_ROWS = 500;
/**
 * Rows a transaction of the validating pass checks, then rolls back: fewer than a batch, so that another account's
 * write waits for a shorter hold of SQLite's writer (§26 sets the size of the running pass's transactions only).
 */
export const CHECK_ROWS = 100;
/** How long a worker holds an import between two batches before another may take it up. */
export const LEASE_MS = 60_000;

class Rollback {}
class BatchFailed {
  constructor(readonly failed: RowResult[]) {}
}
class RowFailed {
  constructor(readonly result: RowResult) {}
}

interface Run {
  runtime: Runtime;
  dispatch: Dispatch;
  row: repository.ImportListRow;
  creator: ImportCreator;
  auth: AuthContext;
}

/** The column → field path of each file column that names one, and the columns that name none. */
export function columnsOf(kind: ImportKind, header: string[], mapping: Record<string, string | null> | null) {
  const spec = KIND_SPECS[kind];
  const columns: [string, string][] = [];
  const ignored: string[] = [];
  for (const column of header) {
    const path = mapping && column in mapping ? mapping[column] : isTarget(spec, column) ? column : null;
    if (path === null || path === undefined) ignored.push(column);
    else columns.push([column, path]);
  }
  return { columns, ignored };
}

/** The file's rows: a record each, or an invoice's consecutive records sharing an `external_id`. */
async function* rowsOf(
  records: AsyncGenerator<{ header: string[] } | CsvRecord>,
  groupColumn: string | undefined,
): AsyncGenerator<ImportRow> {
  let open: ImportRow | undefined;
  for await (const item of records) {
    if ('header' in item) continue;
    const key = groupColumn === undefined ? '' : (item.cells[groupColumn] ?? '');
    const openKey = groupColumn === undefined || !open ? '' : (open.records[0]?.cells[groupColumn] ?? '');
    if (open && groupColumn !== undefined && key !== '' && key === openKey) {
      open.records.push(item);
      continue;
    }
    if (open) yield open;
    open = { line: item.line, records: [item] };
  }
  if (open) yield open;
}

function operationScope(run: Run, pass: OperationScope['pass'], db: Context['db']): OperationScope {
  return {
    pass,
    db,
    origin: { type: 'import', id: run.row.id },
    actor: run.creator.type === 'mcp' ? 'mcp' : 'api_key',
    auth: run.auth,
  };
}

/**
 * The row environment in the transaction `db`: the kind, the columns, the account's currency and custom fields,
 * and the holders of the external ids of `rows` (the rows the transaction writes), read at once.
 */
async function environmentOf(
  run: Run,
  db: Context['db'],
  columns: [string, string][],
  rows: readonly ImportRow[],
): Promise<RowEnvironment> {
  const kind = run.row.kind as ImportKind;
  const spec = KIND_SPECS[kind];
  const read: Dispatch = (request) => runAsOperation(operationScope(run, 'read', db), () => run.dispatch(request));
  const account = await read({ method: 'GET', path: '/v1/account' });
  const accountCurrency = String((account.body as { data?: { currency?: string } }).data?.currency ?? 'USD');
  let customSchema: Record<string, unknown> | undefined;
  if (spec.customFields && columns.some(([, path]) => path.startsWith('custom_fields.'))) {
    const answer = await read({ method: 'GET', path: `/v1/custom-fields/schema?resource=${spec.customFields}` });
    customSchema = (answer.body as { data?: { schema?: Record<string, unknown> } }).data?.schema;
  }
  return {
    kind,
    spec,
    options: optionsOf(run.row),
    columns,
    accountCurrency,
    customSchema,
    dispatch: (request) => runAsOperation(operationScope(run, 'run', db), () => run.dispatch(request)),
    createMany:
      run.dispatch.createMany === undefined
        ? undefined
        : (bodies) => runAsOperation(operationScope(run, 'run', db), () => run.dispatch.createMany!(spec.path, bodies)),
    read,
    holders: await holdersOf(run, db, columns, rows),
  };
}

/** Which objects hold the external ids that `rows` name (`null`: none), in one query. */
async function holdersOf(
  run: Run,
  db: Context['db'],
  columns: [string, string][],
  rows: readonly ImportRow[],
): Promise<Map<string, string | null>> {
  const column = columns.find(([, path]) => path === 'external_id')?.[0];
  const named = new Set<string>();
  if (column !== undefined)
    for (const row of rows) {
      const cell = row.records[0]?.cells[column] ?? '';
      if (cell !== '') named.add(unescapeFormula(cell));
    }
  const table = KIND_SPECS[run.row.kind as ImportKind].table;
  const found = await findExternalIdHolders(db, table, run.row.account_id, [...named]);
  return new Map([...named].map((externalId) => [externalId, found.get(externalId) ?? null]));
}

/** A row failed in a transaction run without savepoints: it runs again with them (`savepointsFor`). */
class NeedsSavepoints {}

/**
 * Whether a transaction's rows run in a savepoint each: where a failed statement ends the transaction (PostgreSQL),
 * only on a second run after a row failed (`retry`). The first run's rows are the same rows run the same way, a
 * savepoint changing nothing while no row fails; a failed row throws NeedsSavepoints, which rolls the first run back.
 */
const savepointsFor = (db: Context['db'], retry: boolean) => retry || !failureEndsTransaction(db);

/**
 * One row, in its own savepoint where the engine needs one (`guarded`: PostgreSQL) so that a failed row is answered
 * and the transaction goes on; unguarded there, a failed row is thrown as NeedsSavepoints.
 */
async function attempt(
  db: Context['db'],
  row: ImportRow,
  environment: RowEnvironment,
  guarded: boolean,
): Promise<RowResult> {
  if (!guarded) {
    const result = await applyRow(row, environment);
    if (result.outcome === 'failed') throw new NeedsSavepoints();
    keepHolders(environment, result);
    return result;
  }
  try {
    const result = await survivingFailure(db, 'import_row', async () => {
      const result = await applyRow(row, environment);
      if (result.outcome === 'failed') throw new RowFailed(result);
      return result;
    });
    keepHolders(environment, result);
    return result;
  } catch (error) {
    if (!(error instanceof RowFailed)) throw error;
    keepHolders(environment, error.result);
    return error.result;
  }
}

/** The most rows made together by one `createMany`. */
const CREATES_AT_ONCE = 100;

/**
 * `items` in order, as `attempt` runs each (`known`: rows already failed, answered as they are and not run). In a
 * transaction's first run (`together`), consecutive rows that only create (`plainCreate`) are made together
 * (`createMany`) before the next row of another sort, or of an external id among them, runs: the same outcomes,
 * their writes by statements of many rows. A refusal among them is a failed row: NeedsSavepoints, and the
 * transaction runs again a row at a time (with a savepoint each where the engine needs one).
 */
async function attemptAll(
  db: Context['db'],
  items: readonly ImportRow[],
  environment: RowEnvironment,
  guarded: boolean,
  together: boolean,
  known: ReadonlyMap<number, RowResult> = new Map(),
): Promise<RowResult[]> {
  const results: RowResult[] = [];
  let pending: { index: number; line: number; body: Record<string, unknown>; externalId: string | null }[] = [];
  const named = new Set<string>();
  const flush = async () => {
    if (pending.length === 0) return;
    const ids = await environment.createMany!(pending.map(({ body }) => body));
    if (ids === undefined) throw new NeedsSavepoints();
    for (const [at, { index, line, externalId }] of pending.entries()) {
      const result: RowResult = { ...EMPTY_RESULT, line, outcome: 'created', objectId: ids[at] ?? null, externalId };
      results[index] = result;
      keepHolders(environment, result);
    }
    pending = [];
    named.clear();
  };
  for (const item of items) {
    const failed = known.get(item.line);
    if (failed) {
      results.push(failed);
      continue;
    }
    const body = together ? plainCreate(item, environment) : undefined;
    const externalId = typeof body?.external_id === 'string' ? body.external_id : null;
    if (externalId !== null && named.has(externalId)) await flush();
    if (body === undefined) {
      await flush();
      results.push(await attempt(db, item, environment, guarded));
      continue;
    }
    pending.push({ index: results.length, line: item.line, body, externalId });
    results.push(EMPTY_RESULT);
    if (externalId !== null) named.add(externalId);
    if (pending.length === CREATES_AT_ONCE) await flush();
  }
  await flush();
  return results;
}

/**
 * `run(guarded, together)` in a transaction of its own, its creates made together (`attemptAll`); again a row at a
 * time, with savepoints, if a row failed without them or among creates made together.
 */
async function withSavepointsIfNeeded<T>(
  db: Context['db'],
  run: (guarded: boolean, together: boolean) => Promise<T>,
): Promise<T> {
  try {
    return await run(savepointsFor(db, false), true);
  } catch (error) {
    if (!(error instanceof NeedsSavepoints)) throw error;
    return run(savepointsFor(db, true), false);
  }
}

function reportRow(run: Run, result: RowResult, records: CsvRecord[] | undefined): ImportReportRow {
  return {
    import_id: run.row.id,
    account_id: run.row.account_id,
    line: result.line,
    outcome: result.outcome,
    object_id: result.objectId,
    external_id: result.externalId,
    changed_fields: JSON.stringify(result.changedFields),
    errors: JSON.stringify(result.errors),
    cells: records && result.outcome === 'failed' ? JSON.stringify(records.map((record) => record.cells)) : null,
  };
}

function countsOf(results: RowResult[], start: ImportCounts = NO_COUNTS): ImportCounts {
  const counts = { ...start };
  for (const result of results) counts[result.outcome] += 1;
  return counts;
}

/** The worker's work on a claimed import: validate unless already running, then run; ends it. */
export async function processImport(
  runtime: Runtime,
  dispatch: Dispatch,
  row: repository.ImportListRow,
): Promise<void> {
  const creator = fromJson<ImportCreator>(row.created_by);
  const auth: AuthContext = {
    accountId: row.account_id,
    keyId: creator.id ?? row.id,
    appId: creator.app_id ?? undefined,
    scopes: new Set(fromJson<string[]>(row.acting_scopes)),
    rateLimits: {},
    ancestors: [],
  };
  const run: Run = { runtime, dispatch, row, creator, auth };
  const file = await repository.findImportFile(runtime.db, row.account_id, row.id);
  try {
    if (file === null) throw new FileProblem('no_file', 'The import has no file.');
    if (row.status !== 'running') {
      const proceed = await validate(run, file);
      if (!proceed) return;
    }
    await runRows(run, file);
  } catch (error) {
    if (!(error instanceof FileProblem)) throw error;
    await finish(run, 'failed', { error: JSON.stringify({ code: error.code, message: error.message }) });
  } finally {
    await repository.releaseImport(runtime.db, row.id);
  }
}

/** Sets the import's end (unless it was canceled meanwhile) and records its event, in one transaction. */
async function finish(
  run: Run,
  status: 'completed' | 'failed',
  patch: Parameters<typeof repository.updateImport>[3],
  report: ImportReportRow[] = [],
): Promise<void> {
  const { runtime, row } = run;
  const now = runtime.clock.now().toISOString();
  await inTransaction(runtime, async (tx) => {
    const ended = await repository.updateImport(
      tx.db,
      row.account_id,
      row.id,
      { ...patch, status, finished_at: now, updated_at: now },
      ['queued', 'validating', 'running'],
    );
    if (!ended) return;
    await repository.insertReportRows(tx.db, report);
    const current = await repository.findImport(tx.db, row.account_id, row.id);
    if (current) await recordEvent(importEventContext(tx, run), `import.${status}`, presentImport(current));
  });
}

/** The import's own events are its creator's, as its rows' are (§26). */
function importEventContext(tx: Runtime, run: Run) {
  const { type, id, app_id } = run.creator;
  return { ...tx, accountId: run.row.account_id, actor: { type, id, app_id: app_id ?? null } };
}

/**
 * The first pass: every row through the routes, CHECK_ROWS a transaction that is then rolled back, each taking the
 * writer in turn (`oneLargeWriteAtATime`) so that other accounts' writes go between two of them rather than after
 * the whole file. A row that matches an object an earlier transaction's row made or changed (the same `id`,
 * `external_id` or unique field, directly or through a chain of rows) sees it: those earlier rows are written again
 * first in its transaction (`Ties`), so each row is checked against the database as the file's earlier rows leave
 * it. After every BATCH_ROWS rows checked the import's `rows` says how many rows are checked and its lease is
 * renewed; a cancel stops the pass. A dry run ends here with each row's outcome; so does an import with failed
 * rows under `on_error: abort` (failed, nothing written). Answers whether the running pass follows.
 */
async function validate(run: Run, file: string): Promise<boolean> {
  const { runtime, row } = run;
  const now = runtime.clock.now().toISOString();
  const options = optionsOf(row);
  const moved = await repository.updateImport(
    runtime.db,
    row.account_id,
    row.id,
    { status: 'validating', started_at: row.started_at ?? now, updated_at: now, lease_until: leaseFrom(run) },
    ['queued', 'validating'],
  );
  if (!moved) return false;
  const results: RowResult[] = [];
  const failedRecords = new Map<number, CsvRecord[]>();
  let records = 0;
  const { rows, ignoredColumns } = await openRows(run, file);
  const ties = new Ties();
  const keyColumns = KIND_SPECS[row.kind as ImportKind].unique;
  let chunk: ImportRow[] = [];
  let checks = 0;
  /** Checks the chunk; answers false once the import is no longer validating (canceled). */
  const check = async (): Promise<boolean> => {
    if (chunk.length === 0) return true;
    const keys = chunk.map((item) => keysOf(item, rows.columns, keyColumns));
    const checked = await checkRows(run, ties.earlier(keys.flat()), chunk, rows.columns);
    for (const [index, result] of checked.entries()) {
      const item = chunk[index] as ImportRow;
      results.push(result);
      if (result.outcome === 'failed') failedRecords.set(result.line, item.records);
      else ties.add(item, keys[index] ?? []);
    }
    chunk = [];
    // The progress, the lease and a cancel's check, each batch's worth of rows: a write of its own, not each check.
    checks += 1;
    if (checks % (BATCH_ROWS / CHECK_ROWS) !== 0) return true;
    const at = runtime.clock.now().toISOString();
    return repository.updateImport(
      runtime.db,
      row.account_id,
      row.id,
      { rows: records, updated_at: at, lease_until: leaseFrom(run) },
      ['validating'],
    );
  };
  for await (const item of rows.rows) {
    records += item.records.length;
    chunk.push(item);
    if (chunk.length === CHECK_ROWS && !(await check())) return false;
  }
  if (!(await check())) return false;
  const failed = results.filter((result) => result.outcome === 'failed').length;
  const common = { rows: records, ignored_columns: JSON.stringify(ignoredColumns) };
  if (row.dry_run === 1 || (failed > 0 && options.on_error === 'abort')) {
    const real = row.dry_run !== 1;
    const reported = results.map((result) =>
      real && result.outcome !== 'failed' ? { ...result, outcome: 'skipped' as const, objectId: null } : result,
    );
    const report = reported.map((result) => reportRow(run, result, failedRecords.get(result.line)));
    const error = real
      ? JSON.stringify({
          code: 'rows_failed',
          message: `${failed} row${failed === 1 ? '' : 's'} failed; nothing was written (on_error: abort).`,
        })
      : null;
    await finish(
      run,
      real ? 'failed' : 'completed',
      { ...common, counts: JSON.stringify(countsOf(reported)), error },
      report,
    );
    return false;
  }
  return repository.updateImport(
    runtime.db,
    row.account_id,
    row.id,
    { ...common, status: 'running', updated_at: runtime.clock.now().toISOString(), lease_until: leaseFrom(run) },
    ['validating'],
  );
}

/** `chunk`'s rows checked in one transaction, rolled back, after the earlier rows they depend on (`replay`). */
async function checkRows(
  run: Run,
  replay: ImportRow[],
  chunk: ImportRow[],
  columns: [string, string][],
): Promise<RowResult[]> {
  let results: RowResult[] = [];
  await withSavepointsIfNeeded(run.runtime.db, async (guarded, together) => {
    results = [];
    try {
      await oneLargeWriteAtATime(run.runtime.db, () =>
        inTransaction(run.runtime, async (tx) => {
          const environment = await environmentOf(run, tx.db, columns, [...replay, ...chunk]);
          const all = await attemptAll(tx.db, [...replay, ...chunk], environment, guarded, together);
          results = all.slice(replay.length);
          throw new Rollback();
        }),
      );
    } catch (error) {
      if (!(error instanceof Rollback)) throw error;
    }
  });
  return results;
}

/** The values by which a row meets other rows of its file: its `id`, its `external_id` and its kind's unique fields. */
function keysOf(item: ImportRow, columns: [string, string][], unique: readonly string[]): string[] {
  const first = item.records[0];
  const keys: string[] = [];
  for (const [column, path] of columns)
    if (path === 'id' || path === 'external_id' || unique.includes(path)) {
      const cell = first?.cells[column] ?? '';
      if (cell !== '') keys.push(`${path}\u0000${cell}`);
    }
  return keys;
}

/**
 * The rows already checked, grouped by the keys they share (a union-find of keys: rows tied by one key, or by a
 * chain of rows each sharing one with the next, are one group), so that a later row's transaction can first write
 * again the earlier rows its object depends on.
 */
class Ties {
  private readonly parent = new Map<string, string>();
  private readonly rows = new Map<string, ImportRow[]>();

  private root(key: string): string {
    let at = key;
    for (let up = this.parent.get(at); up !== undefined && up !== at; up = this.parent.get(at)) at = up;
    if (at !== key) this.parent.set(key, at);
    return at;
  }

  /** The earlier rows tied to any of `keys`, in the file's order. */
  earlier(keys: readonly string[]): ImportRow[] {
    const roots = new Set(keys.filter((key) => this.parent.has(key)).map((key) => this.root(key)));
    return [...roots].flatMap((root) => this.rows.get(root) ?? []).sort((a, b) => a.line - b.line);
  }

  add(item: ImportRow, keys: readonly string[]): void {
    if (keys.length === 0) return;
    for (const key of keys) if (!this.parent.has(key)) this.parent.set(key, key);
    const [first, ...others] = keys.map((key) => this.root(key));
    const root = first as string;
    const rows = this.rows.get(root) ?? [];
    for (const other of new Set(others))
      if (other !== root) {
        this.parent.set(other, root);
        rows.push(...(this.rows.get(other) ?? []));
        this.rows.delete(other);
      }
    rows.push(item);
    this.rows.set(root, rows);
  }
}

const leaseFrom = (run: Run) => new Date(run.runtime.clock.now().getTime() + LEASE_MS).toISOString();

/** The file's rows with the columns they map to. */
async function openRows(run: Run, file: string) {
  const kind = run.row.kind as ImportKind;
  const records = readRecords(file, optionsOf(run.row).delimiter);
  const first = await records.next();
  if (first.done || !('header' in first.value)) throw new FileProblem('empty_file', 'The file has no header row.');
  const mapping = run.row.mapping === null ? null : fromJson<Record<string, string | null>>(run.row.mapping);
  const { columns, ignored } = columnsOf(kind, first.value.header, mapping);
  const groupColumn = KIND_SPECS[kind].lines ? columns.find(([, path]) => path === 'external_id')?.[0] : undefined;
  return { rows: { rows: rowsOf(records, groupColumn), columns }, ignoredColumns: ignored };
}

/** The second pass: batches of 500 rows after `progress_line`, each committed with its report and progress. */
async function runRows(run: Run, file: string): Promise<void> {
  const { runtime, row } = run;
  const { rows } = await openRows(run, file);
  let batch: ImportRow[] = [];
  let canceled = false;
  let aborted: RowResult | undefined;
  /** The rows not written after a cancel or an abort, reported at the end. */
  const tail: { result: RowResult; records: CsvRecord[] }[] = [];
  const skip = (item: ImportRow) =>
    tail.push({ result: { ...EMPTY_RESULT, line: item.line, outcome: 'skipped' }, records: item.records });
  const flush = async () => {
    if (batch.length === 0) return;
    const current = await repository.findImport(runtime.db, row.account_id, row.id);
    canceled = current?.status !== 'running';
    if (canceled || aborted) for (const item of batch) skip(item);
    else {
      aborted = await commitBatch(run, batch, rows.columns);
      if (aborted)
        for (const item of batch)
          if (item.line === aborted.line) tail.push({ result: aborted, records: item.records });
          else skip(item);
    }
    batch = [];
  };
  for await (const item of rows.rows) {
    if (item.line <= row.progress_line) continue;
    batch.push(item);
    if (batch.length === BATCH_ROWS) await flush();
  }
  await flush();
  const report = tail.map(({ result, records }) => reportRow(run, result, records));
  const current = await repository.findImport(runtime.db, row.account_id, row.id);
  const counts = countsOf(
    tail.map(({ result }) => result),
    { ...NO_COUNTS, ...fromJson<Partial<ImportCounts>>(current?.counts ?? '{}') },
  );
  if (canceled) {
    // Canceled meanwhile: `POST …/cancel` ended it; the rows it kept from being written are reported skipped.
    await inTransaction(runtime, async (tx) => {
      await repository.insertReportRows(tx.db, report);
      await repository.updateImport(tx.db, row.account_id, row.id, {
        counts: JSON.stringify(counts),
        updated_at: runtime.clock.now().toISOString(),
      });
    });
    return;
  }
  const error = aborted
    ? JSON.stringify({
        code: 'row_failed',
        message: `Line ${aborted.line} failed while running (the data changed after validation); the rows after it were not written (on_error: abort).`,
      })
    : null;
  await finish(run, aborted ? 'failed' : 'completed', { counts: JSON.stringify(counts), error }, report);
}

const EMPTY_RESULT: RowResult = {
  line: 0,
  outcome: 'skipped',
  objectId: null,
  externalId: null,
  changedFields: [],
  errors: [],
};

/**
 * One batch in one transaction with its report rows, counts and progress. A failed row rolls the batch back, and
 * it runs again without the failed rows (reported failed); under `on_error: abort` the failure ends the import
 * instead (answered, so that the rows after it are skipped).
 */
async function commitBatch(run: Run, batch: ImportRow[], columns: [string, string][]): Promise<RowResult | undefined> {
  const { runtime, row } = run;
  const options = optionsOf(row);
  const failed = new Map<number, RowResult>();
  for (;;) {
    try {
      await withSavepointsIfNeeded(runtime.db, (guarded, together) => commitOnce(guarded, together));
      return undefined;
    } catch (error) {
      if (!(error instanceof BatchFailed)) throw error;
      if (options.on_error === 'abort') return error.failed[0];
      for (const result of error.failed) failed.set(result.line, result);
    }
  }

  async function commitOnce(guarded: boolean, together: boolean): Promise<void> {
    await oneLargeWriteAtATime(runtime.db, () =>
      inTransaction(runtime, async (tx) => {
        const environment = await environmentOf(run, tx.db, columns, batch);
        const results = await attemptAll(tx.db, batch, environment, guarded, together, failed);
        const fresh = results.filter((result) => result.outcome === 'failed' && !failed.has(result.line));
        if (fresh.length > 0) throw new BatchFailed(fresh);
        const records = new Map(batch.map((item) => [item.line, item.records]));
        await repository.insertReportRows(
          tx.db,
          results.map((result) => reportRow(run, result, records.get(result.line))),
        );
        const current = await repository.findImport(tx.db, row.account_id, row.id);
        const counts = countsOf(results, {
          ...NO_COUNTS,
          ...fromJson<Partial<ImportCounts>>(current?.counts ?? '{}'),
        });
        const last = batch[batch.length - 1] as ImportRow;
        await repository.updateImport(tx.db, row.account_id, row.id, {
          counts: JSON.stringify(counts),
          progress_line: last.records[last.records.length - 1]?.line ?? last.line,
          updated_at: runtime.clock.now().toISOString(),
          lease_until: leaseFrom(run),
        });
      }),
    );
  }
}
