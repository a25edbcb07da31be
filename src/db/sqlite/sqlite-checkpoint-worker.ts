// The checkpoint thread (db/sqlite/sqlite-checkpoint.ts): copies a database's write-ahead log back into the database
// file on a connection of its own, off the server's event loop. PASSIVE: it never waits for, nor blocks, the
// writer or a reader; what a reader still needs stays in the log until the next checkpoint.
import SqliteDatabase from 'better-sqlite3';

export default function checkpoint(file: string): { log: number; checkpointed: number } {
  const connection = new SqliteDatabase(file, { fileMustExist: true });
  try {
    // A checkpoint syncs the log before it copies and the database file after (synchronous NORMAL or FULL).
    connection.pragma('synchronous = NORMAL');
    const [result] = connection.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number; checkpointed: number }>;
    return { log: result!.log, checkpointed: result!.checkpointed };
  } finally {
    connection.close();
  }
}
