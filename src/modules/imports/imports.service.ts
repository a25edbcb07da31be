// The rules of an import's life outside the worker (docs/api-contract.md §26): made with its kind, mapping and
// options; given its file until the worker takes it (then 409); applied when a completed dry run; canceled until
// it ends; its report listed and its failed rows given back as errors.csv. The worker's side is import-runner.ts.
import { AppError, type ErrorDetail, fieldError, validationError } from '../../core/errors.js';
import { newId } from '../../core/deps.js';
import { type Page, pageRequest, toPage } from '../../db/index.js';
import type { ImportRecordRow } from '../../db/types.js';
import { type Context, inTransaction, type Runtime } from '../../kernel/context.js';
import { recordEvent } from '../events/index.js';
import { errorsCsv } from './import-csv.js';
import { isTarget, KIND_SPECS } from './import-fields.js';
import { type ImportCreator, NO_COUNTS, presentImport, presentReportRow } from './import-present.js';
import { LEASE_MS, processImport } from './import-runner.js';
import type { Dispatch } from './import-rows.js';
import * as repository from './imports.repository.js';
import {
  type CreateImportInput,
  DEFAULT_OPTIONS,
  IMPORT_STATUSES,
  type Import,
  type ImportRowReport,
  type ListImportRowsInput,
  type ListImportsInput,
  ROW_OUTCOMES,
} from './imports.schemas.js';

/** Statuses an import may still be canceled in; the first two still take a file. */
const OPEN = ['awaiting_file', 'queued', 'validating', 'running'] as const;
const TAKES_FILE = ['awaiting_file', 'queued'] as const;

const listeners = new Set<() => void>();

/** Hear of imports queued in this process (the worker, to start at once); answers the way to stop hearing. */
export function onImportQueued(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function wake(): void {
  for (const listener of listeners) listener();
}

/** A file that is no UTF-8 text reaches the service as this (http parsers hand on text). */
export const NOT_TEXT = '\u0000';

function notFound(): AppError {
  return new AppError('NOT_FOUND', 'No import with this id exists in your account.');
}

async function mustFind(ctx: Context, id: string) {
  const row = await repository.findImport(ctx.db, ctx.accountId, id);
  if (!row) throw notFound();
  return row;
}

function creatorOf(ctx: Context): ImportCreator {
  return { type: ctx.actor.type as ImportCreator['type'], id: ctx.actor.id, app_id: ctx.actor.app_id ?? null };
}

function mappingProblems(input: CreateImportInput): ErrorDetail[] {
  const spec = KIND_SPECS[input.kind];
  return Object.entries(input.mapping ?? {})
    .filter(([, path]) => path !== null && !isTarget(spec, path))
    .map(([column, path]) => ({
      field: `mapping.${column}`,
      message: `names ${String(path)}, which is no writable field of a ${input.kind} (nor id, a reference column or custom_fields.<key>)`,
    }));
}

/** POST /v1/imports: awaiting its file. `scopes` are the caller's: the rows are written with them. */
export async function createImport(
  ctx: Context,
  input: CreateImportInput,
  scopes: ReadonlySet<string>,
): Promise<Import> {
  const problems = mappingProblems(input);
  if (problems.length > 0) throw validationError(problems);
  const now = ctx.clock.now().toISOString();
  const row: ImportRecordRow = {
    id: newId(),
    account_id: ctx.accountId,
    kind: input.kind,
    dry_run: input.dry_run ? 1 : 0,
    mapping: input.mapping ? JSON.stringify(input.mapping) : null,
    ignored_columns: null,
    options: JSON.stringify({ ...DEFAULT_OPTIONS, ...input.options }),
    status: 'awaiting_file',
    rows: null,
    counts: JSON.stringify(NO_COUNTS),
    error: null,
    created_by: JSON.stringify(creatorOf(ctx)),
    acting_scopes: JSON.stringify([...scopes]),
    file: null,
    source_import_id: null,
    progress_line: 1,
    lease_until: null,
    started_at: null,
    finished_at: null,
    metadata: JSON.stringify(input.metadata ?? {}),
    created_at: now,
    updated_at: now,
  };
  return inTransaction(ctx, async (tx) => {
    await repository.insertImport(tx.db, row);
    const made = presentImport(row);
    await recordEvent(tx, 'import.created', made);
    return made;
  });
}

export async function getImport(ctx: Context, id: string): Promise<Import> {
  return presentImport(await mustFind(ctx, id));
}

function parseList<T extends string>(field: string, text: string | undefined, allowed: readonly T[]): T[] | undefined {
  if (text === undefined) return undefined;
  const names = text.split(',').map((name) => name.trim());
  if (names.some((name) => !(allowed as readonly string[]).includes(name)))
    throw fieldError(field, `must be a comma-separated list of: ${allowed.join(', ')}`);
  return names as T[];
}

export async function listImports(ctx: Context, query: ListImportsInput): Promise<Page<repository.ImportListRow>> {
  const page = pageRequest(query, repository.IMPORT_SORTS);
  const statuses = parseList('status', query.status, IMPORT_STATUSES);
  const { rows, resumeAfter } = await repository.listImports(
    ctx.db,
    ctx.accountId,
    { ...query, statuses, kind: query.kind },
    page,
  );
  return toPage(rows, page, resumeAfter);
}

/**
 * PUT /v1/imports/:id/file: the CSV (again while still queued; once the worker has it, 409). A file that is no
 * UTF-8 text ends the import `failed`, nothing written (§32).
 */
export async function attachFile(ctx: Context, id: string, text: string): Promise<Import> {
  const attached = await inTransaction(ctx, async (tx) => {
    const row = await mustFind(tx, id);
    if (!(TAKES_FILE as readonly string[]).includes(row.status))
      throw new AppError(
        'INVALID_STATE',
        `The import is ${row.status}: a file is taken only while it is awaiting_file or queued.`,
      );
    const now = ctx.clock.now().toISOString();
    if (text.includes(NOT_TEXT)) {
      const error = { code: 'not_utf8', message: 'The file is not UTF-8 CSV text; nothing was written.' };
      await repository.updateImport(tx.db, ctx.accountId, id, {
        status: 'failed',
        error: JSON.stringify(error),
        finished_at: now,
        updated_at: now,
      });
      const failed = presentImport(await mustFind(tx, id));
      await recordEvent(tx, 'import.failed', failed);
      return failed;
    }
    await repository.updateImport(tx.db, ctx.accountId, id, { file: text, status: 'queued', updated_at: now });
    return presentImport(await mustFind(tx, id));
  });
  if (attached.status === 'queued') wake();
  return attached;
}

/** POST /v1/imports/:id/apply: a completed dry run's file, mapping and options as a real import, queued. */
export async function applyDryRun(ctx: Context, id: string): Promise<Import> {
  const applied = await inTransaction(ctx, async (tx) => {
    const source = await mustFind(tx, id);
    if (source.dry_run !== 1 || source.status !== 'completed')
      throw new AppError('INVALID_STATE', 'Only a completed dry run can be applied.');
    const file = await repository.findImportFile(tx.db, ctx.accountId, id);
    const now = ctx.clock.now().toISOString();
    const row: ImportRecordRow = {
      ...source,
      id: newId(),
      dry_run: 0,
      ignored_columns: null,
      status: 'queued',
      rows: null,
      counts: JSON.stringify(NO_COUNTS),
      error: null,
      created_by: JSON.stringify(creatorOf(ctx)),
      file,
      source_import_id: source.id,
      progress_line: 1,
      lease_until: null,
      started_at: null,
      finished_at: null,
      created_at: now,
      updated_at: now,
    };
    await repository.insertImport(tx.db, row);
    const made = presentImport(row);
    await recordEvent(tx, 'import.created', made);
    return made;
  });
  wake();
  return applied;
}

/** POST /v1/imports/:id/cancel: ends it; the worker stops before its next batch (rows not written: skipped). */
export async function cancelImport(ctx: Context, id: string): Promise<Import> {
  return inTransaction(ctx, async (tx) => {
    const row = await mustFind(tx, id);
    const now = ctx.clock.now().toISOString();
    const ended = await repository.updateImport(
      tx.db,
      ctx.accountId,
      id,
      { status: 'canceled', finished_at: now, updated_at: now },
      OPEN,
    );
    if (!ended) throw new AppError('INVALID_STATE', `The import is ${row.status} and can no longer be canceled.`);
    const canceled = presentImport(await mustFind(tx, id));
    await recordEvent(tx, 'import.canceled', canceled);
    return canceled;
  });
}

const lineCursor = (line: number) => Buffer.from(JSON.stringify({ line })).toString('base64url');

function afterLineOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  try {
    const { line } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { line?: unknown };
    if (typeof line === 'number' && Number.isInteger(line)) return line;
  } catch {
    // Falls through to the 422 below.
  }
  throw fieldError('cursor', 'is not a cursor returned by this API');
}

/** GET /v1/imports/:id/rows: the report in line order. */
export async function listReport(
  ctx: Context,
  id: string,
  query: ListImportRowsInput,
): Promise<{ items: ImportRowReport[]; hasMore: boolean; nextCursor: string | null }> {
  await mustFind(ctx, id);
  const limit = query.limit ?? 25;
  const outcomes = parseList('outcome', query.outcome, ROW_OUTCOMES);
  const rows = await repository.listReportRows(ctx.db, ctx.accountId, id, afterLineOf(query.cursor), limit, outcomes);
  const items = rows.slice(0, limit).map(presentReportRow);
  const hasMore = rows.length > limit;
  const last = items[items.length - 1];
  return { items, hasMore, nextCursor: hasMore && last ? lineCursor(last.line) : null };
}

/** GET /v1/imports/:id/errors.csv: the failed rows as sent, with an `errors` column. */
export async function failedRowsCsv(ctx: Context, id: string): Promise<string> {
  await mustFind(ctx, id);
  const records: Record<string, string>[] = [];
  const errors: string[] = [];
  let after = 0;
  for (;;) {
    const rows = await repository.listReportRows(ctx.db, ctx.accountId, id, after, 500, ['failed']);
    for (const row of rows.slice(0, 500)) {
      const report = presentReportRow(row);
      const text = report.errors.map((error) => `${error.field}: ${error.message}`).join('; ');
      const cells = row.cells === null ? [] : (JSON.parse(row.cells) as Record<string, string>[]);
      for (const record of cells) {
        records.push(record);
        errors.push(text);
      }
      after = row.line;
    }
    if (rows.length <= 500) break;
  }
  return errorsCsv(records, errors);
}

/** One pass of the imports worker: each import with work left, oldest first, until none is left. */
export async function runImportsPass(runtime: Runtime, dispatch: Dispatch): Promise<number> {
  let processed = 0;
  for (;;) {
    const now = runtime.clock.now();
    const claimed = await repository.claimImport(
      runtime.db,
      now.toISOString(),
      new Date(now.getTime() + LEASE_MS).toISOString(),
    );
    if (!claimed) return processed;
    await processImport(runtime, dispatch, claimed);
    processed += 1;
  }
}
