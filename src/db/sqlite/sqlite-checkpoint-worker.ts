// The checkpoint thread (db/sqlite/sqlite-checkpoint.ts): copies a database's write-ahead log back into the database
// file on a connection of its own, off the server's event loop. PASSIVE: it never waits for, nor blocks, the
// writer or a reader; what a reader still needs stays in the log until the next checkpoint. The same thread and
// connection tidy the FTS5 indexes (db/sqlite/sqlite-index-tidy.ts): the sizes of an index's segments, and one
// step of merging them, run while the server's writer waits for it without blocking its event loop.
//
// The connection is kept between checkpoints, one per database file, until the database closes (`{ file, close:
// true }`): opening one reads and parses the whole schema, 3.7–4.3 ms of CPU a checkpoint at 1,000,000 clients,
// where the checkpoint of an empty log costs 23 µs (bench/README.md, "Custom fields on SQLite: the server's
// creates, measured"). A checkpoint that fails drops its connection: the next one opens afresh.
import SqliteDatabase from 'better-sqlite3';

const kept = new Map<string, SqliteDatabase.Database>();

function connectionTo(file: string): SqliteDatabase.Database {
  let connection = kept.get(file);
  if (connection === undefined) {
    connection = new SqliteDatabase(file, { fileMustExist: true });
    // A checkpoint syncs the log before it copies and the database file after (synchronous NORMAL or FULL).
    connection.pragma('synchronous = NORMAL');
    // Its FTS5 merge steps write: never a checkpoint inside one (the server's writes wait for the step), one after.
    connection.pragma('wal_autocheckpoint = 0');
    kept.set(file, connection);
  }
  return connection;
}

/** How many connections the thread keeps (one per database file it checkpointed and that is not closed). */
export function keptConnections(): number {
  return kept.size;
}

function closeConnection(file: string): void {
  kept.get(file)?.close();
  kept.delete(file);
}

/** A task of the thread: a file's checkpoint (its path), its connection's close, or its FTS5 indexes' tidy. */
export type ThreadTask =
  | string
  | { file: string; close: true }
  | { file: string; segments: true }
  | { file: string; merge: string; pages: number };

/**
 * The leaf pages of each segment of FTS5 table `fts`'s index, about: its `_idx` table has a row for each leaf page
 * that begins a term, its number shifted left by one (the low bit a flag), so a segment ending in a long list of
 * rows counts a little short.
 */
function segmentPages(connection: SqliteDatabase.Database, fts: string): number[] {
  return connection.prepare(`select max(pgno) >> 1 from "${fts}_idx" group by segid`).pluck().all() as number[];
}

/** Each FTS5 table's index, as the pages of each of its segments. */
function indexes(connection: SqliteDatabase.Database): Record<string, number[]> {
  const tables = connection
    .prepare("select name from sqlite_schema where type = 'table' and sql like 'create virtual table % using fts5%'")
    .pluck()
    .all() as string[];
  return Object.fromEntries(tables.map((fts) => [fts, segmentPages(connection, fts)]));
}

/**
 * One step of merging `fts`'s index, about `pages` pages written (more where a term's list of rows cannot be split),
 * in a transaction of its own: with a negative count the step begins a merge of every segment into one (FTS5's
 * `merge`), with a positive one it goes on with a merge begun. Whether it did any work (FTS5 changes at least two
 * rows of its data when it does).
 */
function mergeStep(connection: SqliteDatabase.Database, fts: string, pages: number): boolean {
  const changes = connection.prepare('select total_changes()').pluck();
  const before = changes.get() as number;
  connection.prepare(`insert into "${fts}"("${fts}", rank) values ('merge', ?)`).run(pages);
  return (changes.get() as number) - before >= 2;
}

export default function run(
  task: ThreadTask,
): { log: number; checkpointed: number } | Record<string, number[]> | boolean | undefined {
  const file = typeof task === 'string' ? task : task.file;
  if (typeof task !== 'string' && 'close' in task) {
    closeConnection(file);
    return undefined;
  }
  try {
    const connection = connectionTo(file);
    if (typeof task !== 'string')
      return 'segments' in task ? indexes(connection) : mergeStep(connection, task.merge, task.pages);
    const [result] = connection.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number; checkpointed: number }>;
    return { log: result!.log, checkpointed: result!.checkpointed };
  } catch (error) {
    closeConnection(file);
    throw error;
  }
}
