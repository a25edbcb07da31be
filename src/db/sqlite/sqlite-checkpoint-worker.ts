// The checkpoint thread (db/sqlite/sqlite-checkpoint.ts): copies a database's write-ahead log back into the database
// file on a connection of its own, off the server's event loop. PASSIVE: it never waits for, nor blocks, the
// writer or a reader; what a reader still needs stays in the log until the next checkpoint.
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

export default function checkpoint(
  task: string | { file: string; close: true },
): { log: number; checkpointed: number } | undefined {
  if (typeof task !== 'string') {
    closeConnection(task.file);
    return undefined;
  }
  try {
    const [result] = connectionTo(task).pragma('wal_checkpoint(PASSIVE)') as Array<{
      log: number;
      checkpointed: number;
    }>;
    return { log: result!.log, checkpointed: result!.checkpointed };
  } catch (error) {
    closeConnection(task);
    throw error;
  }
}
