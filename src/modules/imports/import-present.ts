// An import's row as the API answers it, and the report's rows likewise.
import { fromJson } from '../../db/index.js';
import type { ImportReportRow } from '../../db/types.js';
import type { ImportListRow } from './imports.repository.js';
import {
  DEFAULT_OPTIONS,
  type Import,
  type ImportCounts,
  type ImportKind,
  type ImportOptions,
  type ImportRowReport,
  type ImportStatus,
  type RowError,
  type RowOutcome,
} from './imports.schemas.js';

export const NO_COUNTS: ImportCounts = { created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0 };

/** Who made the import, as its row keeps it: the actor its rows' events name, and its app if a token. */
export interface ImportCreator {
  type: 'api_key' | 'mcp' | 'app';
  id: string | null;
  app_id?: string | null;
}

export function optionsOf(row: Pick<ImportListRow, 'options'>): ImportOptions {
  return { ...DEFAULT_OPTIONS, ...fromJson<Partial<ImportOptions>>(row.options) };
}

export function presentImport(row: ImportListRow): Import {
  const creator = fromJson<ImportCreator>(row.created_by);
  return {
    id: row.id,
    object: 'import',
    kind: row.kind as ImportKind,
    dry_run: row.dry_run === 1,
    mapping: row.mapping === null ? {} : fromJson<Record<string, string | null>>(row.mapping),
    ignored_columns: row.ignored_columns === null ? [] : fromJson<string[]>(row.ignored_columns),
    options: optionsOf(row),
    status: row.status as ImportStatus,
    rows: row.rows,
    counts: { ...NO_COUNTS, ...fromJson<Partial<ImportCounts>>(row.counts) },
    error: row.error === null ? null : fromJson<{ code: string; message: string }>(row.error),
    created_by: { type: creator.type, id: creator.id },
    started_at: row.started_at,
    finished_at: row.finished_at,
    metadata: fromJson<Record<string, string>>(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentReportRow(row: ImportReportRow): ImportRowReport {
  return {
    object: 'import_row',
    line: row.line,
    outcome: row.outcome as RowOutcome,
    object_id: row.object_id,
    external_id: row.external_id,
    changed_fields: fromJson<string[]>(row.changed_fields),
    errors: fromJson<RowError[]>(row.errors),
  };
}
