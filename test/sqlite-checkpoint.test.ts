// SQLite's checkpoints run on a thread of their own (db/sqlite/sqlite-checkpoint.ts), not in a COMMIT on the event
// loop: under a stream of commits the write-ahead log is still copied into the database file and reused, so
// it stays small, and the database file alone holds what was written.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { openSqlite } from '../src/db/sqlite/sqlite.js';
import { onPostgres } from './helpers/database.js';

test('a stream of commits keeps the write-ahead log small and the database file current (SQLite)', {
  skip: onPostgres,
}, async () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-checkpoint-'));
  const file = path.join(directory, 'stream.sqlite');
  const db = openSqlite(file);
  await sql`create table notes (id integer primary key, body text not null)`.execute(db);
  // The database file alone, as a copy of it without its log would be read: how many notes it holds.
  const notesInFile = () => {
    const copy = path.join(directory, 'copy.sqlite');
    fs.copyFileSync(file, copy);
    const alone = new SqliteDatabase(copy, { readonly: true });
    try {
      return (alone.prepare('select count(*) as n from notes').get() as { n: number }).n;
    } catch {
      return 0; // the table itself not checkpointed yet
    } finally {
      alone.close();
    }
  };
  const until = async (expected: number) => {
    for (let waited = 0; waited < 20_000 && notesInFile() !== expected; waited += 100) await sleep(100);
    return notesInFile();
  };
  // The first commit starts the process's checkpoint thread (loading it can take seconds on a busy machine).
  await sql`insert into notes (body) values ('first')`.execute(db);
  assert.equal(await until(1), 1, 'the first commit reached the database file');
  const body = 'x'.repeat(5_000);
  // 40 commits of 50 rows of 5 KB: 10 MB written, 50 ms apart (2 s in all).
  let largestLog = 0;
  for (let batch = 0; batch < 40; batch += 1) {
    await db.transaction().execute(async (trx) => {
      for (let row = 0; row < 50; row += 1) await sql`insert into notes (body) values (${body})`.execute(trx);
    });
    largestLog = Math.max(largestLog, fs.statSync(`${file}-wal`).size);
    await sleep(50);
  }
  // Without checkpoints the log would hold all 10 MB. A passive checkpoint that a commit overtakes leaves the log
  // to grow until one finishes in a gap between commits: on a quiet machine the log peaked at 1.0–1.3 MB, on a loaded
  // one (CI with both engines' suites at once, 2 cores) it reached 4.0 MB once. Half of what was written is the bound.
  assert.ok(largestLog < 5 * 1024 * 1024, `the log reached ${largestLog} bytes`);
  assert.equal(await until(2_001), 2_001, 'the database file holds every note');
  await db.destroy();
  // Closed: both connections are gone and nothing is left in a log (SQLite checkpoints at the last close).
  assert.equal(fs.existsSync(`${file}-wal`), false);
  fs.rmSync(directory, { recursive: true, force: true });
});

test('the checkpoint thread keeps one connection per database file between checkpoints, closed with the database (SQLite)', {
  skip: onPostgres,
}, async () => {
  // The thread's function called here, in this thread: what it keeps is this module's.
  const { default: checkpoint, keptConnections } = await import('../src/db/sqlite/sqlite-checkpoint-worker.js');
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-checkpoint-'));
  const files = ['one.sqlite', 'two.sqlite'].map((name) => path.join(directory, name));
  const writers = files.map((file) => {
    const writer = new SqliteDatabase(file);
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec('create table notes (id integer primary key, body text not null)');
    return writer;
  });
  const before = keptConnections();
  for (let commit = 0; commit < 3; commit += 1)
    for (const [index, writer] of writers.entries()) {
      writer.prepare('insert into notes (body) values (?)').run(`note ${commit}`);
      const result = checkpoint(files[index]!) as { log: number; checkpointed: number };
      assert.equal(result.checkpointed, result.log, 'the whole log was copied');
    }
  assert.equal(keptConnections() - before, 2, 'one connection per file, however many checkpoints');
  for (const file of files) checkpoint({ file, close: true });
  assert.equal(keptConnections(), before, 'closed with the database');
  for (const writer of writers) writer.close();
  for (const file of files) assert.equal(fs.existsSync(`${file}-wal`), false, 'the last close removed the log');
  fs.rmSync(directory, { recursive: true, force: true });
});
