// `bms backup --to FILE` and `bms restore --from FILE`. SQLite is copied by BMS itself (db/sqlite/sqlite-backup.ts);
// PostgreSQL has its own tools, and the command says which, with the options that fit BMS.
import type { DatabaseConfig } from '../config.js';
import { BackupError, backupSqlite, restoreSqlite } from '../db/index.js';
import { UsageError } from './usage-error.js';

/** What to run instead on PostgreSQL: pg_dump reads one consistent snapshot while the servers write. */
export const POSTGRES_BACKUP_ADVICE = [
  'bms backup copies SQLite databases; DATABASE_URL names a PostgreSQL one. Back it up with pg_dump (the same major version as the server or later), which reads one consistent snapshot while the servers keep writing:',
  '  pg_dump --format=custom --no-owner --no-privileges --file=bms-$(date -u +%Y%m%dT%H%M%SZ).dump "$DATABASE_URL"',
  'Restore it with pg_restore into an empty database (see bms restore), and rehearse that restore regularly.',
].join('\n');

export const POSTGRES_RESTORE_ADVICE = [
  'bms restore writes SQLite databases; DATABASE_URL names a PostgreSQL one. Restore a pg_dump file with pg_restore into a new, empty database, then point DATABASE_URL at it and run bms migrate:',
  '  createdb --owner=bms bms_restored',
  '  pg_restore --no-owner --no-privileges --exit-on-error --single-transaction --dbname="postgres://bms:SECRET@db.internal:5432/bms_restored" FILE.dump',
  '  DATABASE_URL=postgres://bms:SECRET@db.internal:5432/bms_restored bms migrate',
].join('\n');

export interface FileCommandOptions {
  to?: string | undefined;
  from?: string | undefined;
  force?: boolean | undefined;
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`--${flag} is required`);
  return value;
}

export async function runFileCommand(
  command: 'backup' | 'restore',
  options: FileCommandOptions,
  database: DatabaseConfig,
): Promise<{ json: object; text: string }> {
  const file = required(command === 'backup' ? options.to : options.from, command === 'backup' ? 'to' : 'from');
  if (database.kind === 'postgres')
    throw new BackupError(command === 'backup' ? POSTGRES_BACKUP_ADVICE : POSTGRES_RESTORE_ADVICE);
  if (database.path === ':memory:')
    throw new BackupError(`DATABASE_URL names an in-memory database: there is nothing to ${command}`);
  const force = options.force === true;
  if (command === 'backup') {
    const result = await backupSqlite(database.path, file, { force });
    const latest = result.migrations.at(-1);
    return {
      json: {
        file: result.file,
        bytes: result.bytes,
        migration: latest,
        integrity: 'ok',
        duration_ms: result.durationMs,
      },
      text: `Backed up ${database.path} to ${result.file} (${result.bytes} bytes, migration ${latest}, integrity ok) in ${result.durationMs} ms.`,
    };
  }
  const result = await restoreSqlite(file, database.path, { force });
  const applied =
    result.applied.length > 0
      ? `, then applied ${result.applied.length} migration(s): ${result.applied.join(', ')}`
      : '';
  return {
    json: {
      database: result.database,
      from: result.from,
      migration: result.migrations.at(-1),
      applied: result.applied,
      previous: result.previous,
      integrity: 'ok',
      duration_ms: result.durationMs,
    },
    text: `Restored ${result.from} into ${result.database} (it was at migration ${result.migrations.at(-1)}${applied}; integrity ok).${result.previous ? `\nThe database it replaced is kept as ${result.previous}.` : ''}`,
  };
}
