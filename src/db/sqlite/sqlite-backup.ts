// Backup and restore of the SQLite database while servers may be running. A backup is SQLite's online
// backup API copying one consistent snapshot (a read transaction: writers go on meanwhile) into a file
// that is checked, fsynced and only then renamed to its name, so an interrupted backup never leaves a torn
// file under the name asked for. A restore checks the file (integrity, a BMS migration level this build
// knows), migrates a copy, and renames it into place, refusing while any process holds the database open.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import SqliteDatabase from 'better-sqlite3';
import { knownMigrationNames, migrateToLatest } from '../migrate.js';
import { openSqlite } from './sqlite.js';

/** A failure the operator can act on: its message says what and what to do. */
export class BackupError extends Error {}

/**
 * Pages copied per step of the backup API: all of them. A step is one read transaction, so the copy is
 * one snapshot; smaller steps would restart from the beginning whenever a server commits between two.
 */
const ALL_PAGES = 0x7fffffff;

export interface DatabaseFacts {
  /** Names of the applied migrations, oldest first. */
  migrations: string[];
}

export interface BackupResult extends DatabaseFacts {
  file: string;
  bytes: number;
  durationMs: number;
}

export interface RestoreResult {
  database: string;
  from: string;
  /** The migration level of the file restored, and those run on it since. */
  migrations: string[];
  applied: string[];
  /** Where the database the restore replaced was moved (with --force), or null when there was none. */
  previous: string | null;
  durationMs: number;
}

/** A name beside `target` (same folder, so the final rename stays on one file system), marked temporary. */
function temporaryBeside(target: string): string {
  return path.join(
    path.dirname(target),
    `.${path.basename(target)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
}

function removeWithCompanions(file: string): void {
  for (const suffix of ['', '-journal', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
}

function fsync(file: string, flags: 'r' | 'r+'): void {
  const descriptor = fs.openSync(file, flags);
  try {
    fs.fsyncSync(descriptor);
  } finally {
    fs.closeSync(descriptor);
  }
}

function codeOf(error: unknown): string {
  return String((error as { code?: unknown }).code ?? '');
}

/**
 * Checks a database file nobody else has open: `PRAGMA integrity_check`, then that it is a BMS database
 * (the migrations table) whose migrations are a prefix of this build's. `label` names it in messages.
 */
export function inspectDatabase(connection: SqliteDatabase.Database, label: string): DatabaseFacts {
  let problems: string[];
  try {
    problems = (connection.pragma('integrity_check') as Array<{ integrity_check: unknown }>).map((row) =>
      String(row.integrity_check),
    );
  } catch (error) {
    if (codeOf(error) === 'SQLITE_NOTADB' || codeOf(error).startsWith('SQLITE_CORRUPT'))
      throw new BackupError(`${label} is damaged (${(error as Error).message})`);
    throw error;
  }
  if (problems.length !== 1 || problems[0] !== 'ok')
    throw new BackupError(`${label} failed PRAGMA integrity_check: ${problems.slice(0, 5).join('; ')}`);
  const table = connection
    .prepare(`select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'`)
    .get();
  if (!table)
    throw new BackupError(
      `${label} is a SQLite database but not a BMS one: it has no migrations table (kysely_migration)`,
    );
  const names = connection.prepare('select name from kysely_migration order by name').pluck().all() as string[];
  const known = knownMigrationNames();
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0)
    throw new BackupError(
      `${label} comes from a newer BMS: this version does not know its migration(s) ${unknown.join(', ')}. Restore it with that version or a later one`,
    );
  if (names.length === 0 || names.some((name, index) => name !== known[index])) {
    throw new BackupError(
      `${label} has migrations this version never applies in that order (${names.join(', ') || 'none'}); expected the first ${names.length || 1} of ${known.join(', ')}`,
    );
  }
  return { migrations: names };
}

/** Throws unless no other process has `file` open (a server holds a lock on it for as long as it runs). */
function assertNotHeld(file: string): void {
  let probe: SqliteDatabase.Database;
  try {
    probe = new SqliteDatabase(file, { fileMustExist: true });
  } catch (error) {
    throw new BackupError(`Cannot open ${file}: ${(error as Error).message}`);
  }
  try {
    // In WAL mode every open connection holds a shared lock on the database file until it closes (the
    // operating system drops it when a process dies, even by kill -9). An exclusive lock is granted only
    // when there is none: no server, no `bms` command, no sqlite3 shell has the file open.
    probe.pragma('busy_timeout = 0');
    probe.pragma('locking_mode = EXCLUSIVE');
    probe.exec('begin exclusive');
    probe.exec('commit');
    // Fold the log into the file, so the file alone is the whole database when it is moved aside.
    probe.pragma('wal_checkpoint(TRUNCATE)');
  } catch (error) {
    if (codeOf(error).startsWith('SQLITE_BUSY'))
      throw new BackupError(
        `${file} is open in another process (a running bms serve?): stop every server using it, then restore`,
      );
    if (codeOf(error) === 'SQLITE_NOTADB')
      throw new BackupError(`${file} is not a SQLite database: move it away yourself, then restore`);
    throw error;
  } finally {
    probe.close();
  }
}

/** Whether the file starts as every SQLite database does (so a later SQLITE_NOTADB means damage). */
function hasSqliteHeader(file: string): boolean {
  const header = Buffer.alloc(16);
  const descriptor = fs.openSync(file, 'r');
  try {
    return fs.readSync(descriptor, header, 0, 16, 0) === 16 && header.toString('latin1') === 'SQLite format 3\u0000';
  } finally {
    fs.closeSync(descriptor);
  }
}

/** Copies `source` through the backup API into a new file `temporary` (one snapshot, WAL contents included). */
async function copyThroughSqlite(source: string, temporary: string, options: { readonly: boolean }): Promise<void> {
  const from = new SqliteDatabase(source, { fileMustExist: true, readonly: options.readonly });
  try {
    from.pragma('busy_timeout = 5000');
    await from.backup(temporary, { progress: () => ALL_PAGES });
  } catch (error) {
    if (codeOf(error) === 'SQLITE_NOTADB' || codeOf(error).startsWith('SQLITE_CORRUPT')) {
      throw new BackupError(
        hasSqliteHeader(source)
          ? `${source} is damaged (${(error as Error).message})`
          : `${source} is not a SQLite database`,
      );
    }
    throw error;
  } finally {
    from.close();
  }
}

/**
 * `bms backup --to FILE`: a consistent copy of the live database `source`, taken while servers write.
 * The copy is a single file (rollback-journal mode, no -wal beside it), checked before it is renamed.
 */
export async function backupSqlite(source: string, to: string, options: { force: boolean }): Promise<BackupResult> {
  const started = performance.now();
  const target = path.resolve(to);
  if ([source, `${source}-wal`, `${source}-shm`, `${source}-journal`].includes(target))
    throw new BackupError(`--to names the live database (${source}) itself: choose another file`);
  if (!fs.existsSync(source))
    throw new BackupError(`There is no database at ${source} (DATABASE_URL): nothing to back up`);
  if (!fs.existsSync(path.dirname(target))) throw new BackupError(`The folder ${path.dirname(target)} does not exist`);
  if (fs.existsSync(target) && !options.force)
    throw new BackupError(`${target} already exists: choose a new name, or pass --force to replace it`);
  const temporary = temporaryBeside(target);
  try {
    await copyThroughSqlite(source, temporary, { readonly: false });
    const copy = new SqliteDatabase(temporary, { fileMustExist: true });
    let facts: DatabaseFacts;
    try {
      copy.pragma('journal_mode = DELETE');
      facts = inspectDatabase(copy, 'The copy');
    } finally {
      copy.close();
    }
    fsync(temporary, 'r+');
    fs.renameSync(temporary, target);
    fsync(path.dirname(target), 'r');
    return {
      file: target,
      bytes: fs.statSync(target).size,
      ...facts,
      durationMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    removeWithCompanions(temporary);
    throw error;
  }
}

/**
 * `bms restore --from FILE` into the database file `target`: checks the file, copies it beside the
 * target, runs the migrations it lacks, checks it again, and renames it into place. An existing database
 * is replaced only with `force`, only while no process holds it, and is kept, renamed, beside it.
 */
export async function restoreSqlite(from: string, target: string, options: { force: boolean }): Promise<RestoreResult> {
  const started = performance.now();
  const source = path.resolve(from);
  if (!fs.existsSync(source)) throw new BackupError(`There is no file at ${source}`);
  if (source === target)
    throw new BackupError(
      `--from names the database DATABASE_URL points at (${target}): restore a backup into it, not itself`,
    );
  const exists = fs.existsSync(target);
  if (exists && !options.force)
    throw new BackupError(
      `${target} already holds a database: pass --force to replace it (it is kept beside it, renamed)`,
    );
  if (exists) assertNotHeld(target);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const temporary = temporaryBeside(target);
  try {
    await copyThroughSqlite(source, temporary, { readonly: true });
    const copy = new SqliteDatabase(temporary, { fileMustExist: true });
    let before: DatabaseFacts;
    try {
      before = inspectDatabase(copy, source);
    } finally {
      copy.close();
    }
    // The server's own settings (WAL, full fsync) and migrator, as at start.
    const db = openSqlite(temporary);
    let applied: string[];
    try {
      applied = await migrateToLatest(db);
    } finally {
      await db.destroy();
    }
    const check = new SqliteDatabase(temporary, { fileMustExist: true });
    try {
      inspectDatabase(check, 'The restored database');
    } finally {
      check.close();
    }
    fsync(temporary, 'r+');
    let previous: string | null = null;
    if (exists) {
      // Again, just before the swap: a server may have been started since the first check.
      assertNotHeld(target);
      previous = `${target}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      fs.renameSync(target, previous);
      for (const suffix of ['-wal', '-shm', '-journal']) fs.rmSync(`${target}${suffix}`, { force: true });
    }
    fs.renameSync(temporary, target);
    fsync(path.dirname(target), 'r');
    return {
      database: target,
      from: source,
      migrations: before.migrations,
      applied,
      previous,
      durationMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    removeWithCompanions(temporary);
    throw error;
  }
}
