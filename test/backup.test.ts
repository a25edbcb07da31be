// `bms backup` and `bms restore`, run as an operator runs them, against a real server writing at full speed.
// SQLite: the backup is consistent while the server writes (every write acknowledged before it began is in
// it), a kill -9 never leaves a torn file under the name asked for, and restore checks what it is given and
// refuses a database a server holds. PostgreSQL: both commands point at pg_dump and pg_restore, and the
// commands they print are run here and restore a working database.
import assert from 'node:assert/strict';
import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect, type Migration } from 'kysely';
import pg from 'pg';
import { knownMigrationNames } from '../src/db/migrate.js';
import { temporaryDirectory } from './helpers/context.js';
import { createTestDatabase, onPostgres } from './helpers/database.js';
import { runBms, runBmsAsync, spawnBms, startServer, type CliResult, type ServerProcess } from './helpers/processes.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function json(result: CliResult) {
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout);
}

async function stop(server: ServerProcess): Promise<number | null> {
  if (server.child.exitCode === null) server.child.kill('SIGTERM');
  return server.exited;
}

function finished(
  child: ChildProcess,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr?.on('data', (chunk) => (stderr += String(chunk)));
  return new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

/** An account and a key whose limits a full-speed client cannot reach. */
function makeKey(env: Record<string, string>): string {
  const account = json(runBms(['accounts', 'create', '--name', 'Backup Co', '--json'], env));
  return json(
    runBms(
      [
        'keys',
        'create',
        '--account',
        account.id,
        '--name',
        'load',
        '--scopes',
        'all',
        '--per-minute',
        '100000000',
        '--per-day',
        '999999999',
        '--burst',
        '100000000',
        '--json',
      ],
      env,
    ),
  ).key;
}

function integrity(file: string): string {
  const connection = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    return (connection.pragma('integrity_check') as Array<{ integrity_check: string }>)
      .map((row) => row.integrity_check)
      .join('; ');
  } finally {
    connection.close();
  }
}

function clientIds(file: string): Set<string> {
  const connection = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    return new Set(connection.prepare('select id from clients').pluck().all() as string[]);
  } finally {
    connection.close();
  }
}

function sqlitePath(url: string): string {
  return url.slice('sqlite:'.length);
}

test('SQLite: a backup taken while a client writes at full speed holds every write acknowledged before it began, and restores into a new file', {
  skip: onPostgres && 'SQLite only (PostgreSQL: the next tests)',
}, async () => {
  const directory = temporaryDirectory('bms-backup-');
  cleanups.push(() => fs.rmSync(directory, { recursive: true, force: true }));
  const database = await createTestDatabase(directory);
  const env = { DATABASE_URL: database.url, NODE_ENV: 'production', LOG_LEVEL: 'warn' };
  const server = await startServer(env);
  cleanups.push(() => stop(server));
  const key = makeKey(env);
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

  // 8 writers, each creating clients one after another as fast as the server answers.
  const acknowledged: string[] = [];
  let writing = true;
  let failures = 0;
  const writers = Array.from({ length: 8 }, async (_, writer) => {
    for (let index = 0; writing; index += 1) {
      const response = await fetch(`${server.baseUrl}/v1/clients`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: `Writer ${writer} #${index}`, notes: 'x'.repeat(500) }),
      });
      if (response.status === 201) acknowledged.push((await response.json()).data.id);
      else failures += 1;
    }
  });
  while (acknowledged.length < 1500) await new Promise((resolve) => setTimeout(resolve, 20));

  const backupFile = path.join(directory, 'backups', 'bms-backup.sqlite');
  fs.mkdirSync(path.dirname(backupFile));
  const beforeBackup = new Set(acknowledged);
  const backup = finished(spawnBms(['backup', '--to', backupFile, '--json'], env));
  const countAtStart = acknowledged.length;
  const result = await backup;
  const duringBackup = acknowledged.length - countAtStart;
  writing = false;
  await Promise.all(writers);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(failures, 0, 'every create succeeded');
  assert.ok(duringBackup > 0, 'the client kept writing while the backup ran');
  const summary = JSON.parse(result.stdout);
  assert.deepEqual(Object.keys(summary).sort(), ['bytes', 'duration_ms', 'file', 'integrity', 'migration']);
  assert.equal(summary.file, backupFile);
  assert.equal(summary.integrity, 'ok');
  assert.equal(summary.bytes, fs.statSync(backupFile).size);
  assert.deepEqual(
    fs.readdirSync(path.dirname(backupFile)),
    ['bms-backup.sqlite'],
    'one file: no -wal beside it, no temporary left',
  );

  // Restore into a new file, as on a new machine.
  const restoredUrl = `sqlite:${path.join(directory, 'restored', 'bms.sqlite')}`;
  const restored = json(runBms(['restore', '--from', backupFile, '--json'], { ...env, DATABASE_URL: restoredUrl }));
  assert.deepEqual(restored.applied, []);
  assert.equal(restored.previous, null);
  assert.equal(restored.integrity, 'ok');
  assert.equal(integrity(sqlitePath(restoredUrl)), 'ok');
  const present = clientIds(sqlitePath(restoredUrl));
  const missing = [...beforeBackup].filter((id) => !present.has(id));
  assert.deepEqual(
    missing,
    [],
    `every one of the ${beforeBackup.size} clients acknowledged before the backup began is in it`,
  );
  const acknowledgedSet = new Set(acknowledged);
  assert.ok(
    [...present].every((id) => acknowledgedSet.has(id)),
    'nothing in it that was never acknowledged',
  );
  console.log(
    `# backup under load: ${beforeBackup.size} acknowledged before, ${duringBackup} during the backup process (${present.size - beforeBackup.size} of them in the snapshot), ${summary.bytes} bytes, ${summary.duration_ms} ms`,
  );

  // The restored database serves: the same key reads a client written before the backup.
  const second = await startServer({ ...env, DATABASE_URL: restoredUrl });
  cleanups.push(() => stop(second));
  const one = [...beforeBackup][0];
  assert.equal((await fetch(`${second.baseUrl}/v1/clients/${one}`, { headers })).status, 200);

  // A restore over a database a server holds is refused, and changes nothing.
  // Without blocking this process: after this run took long on a loaded machine, the next fetch failed ('fetch
  // failed'), most likely on a keep-alive connection the server had closed while this process was blocked.
  const refused = await runBmsAsync(['restore', '--from', backupFile, '--force'], env);
  assert.equal(refused.status, 1);
  assert.match(
    refused.stderr,
    /is open in another process \(a running bms serve\?\): stop every server using it, then restore/,
  );
  assert.equal(
    (await fetch(`${server.baseUrl}/v1/clients/${acknowledged.at(-1)}`, { headers })).status,
    200,
    'the live database is untouched',
  );
  const refusedJson = runBms(['restore', '--from', backupFile, '--force', '--json'], env);
  assert.match(JSON.parse(refusedJson.stderr).error, /is open in another process/);
  // Without --force an existing database is never replaced.
  assert.match(
    runBms(['restore', '--from', backupFile], { ...env, DATABASE_URL: restoredUrl }).stderr,
    /already holds a database: pass --force to replace it/,
  );

  // Once the server has stopped, --force replaces it and keeps the old one beside it.
  assert.equal(await stop(server), 0);
  const replaced = json(runBms(['restore', '--from', backupFile, '--force', '--json'], env));
  assert.match(replaced.previous, /bms\.sqlite\.before-restore-/);
  assert.equal(clientIds(replaced.previous).size, acknowledged.length, 'the replaced database is kept whole');
  assert.equal(clientIds(sqlitePath(env.DATABASE_URL)).size, present.size);
  assert.equal(integrity(sqlitePath(env.DATABASE_URL)), 'ok');
});

test('SQLite: a backup killed with SIGKILL at any moment leaves its file absent or complete, never torn', {
  skip: onPostgres && 'SQLite only',
}, async () => {
  const directory = temporaryDirectory('bms-backup-kill-');
  cleanups.push(() => fs.rmSync(directory, { recursive: true, force: true }));
  const database = await createTestDatabase(directory);
  const env = { DATABASE_URL: database.url, NODE_ENV: 'production', LOG_LEVEL: 'warn' };
  json(runBms(['migrate', '--json'], env));
  // About 60 MB of clients, so a backup takes long enough to be killed in the middle of its copy.
  const live = new SqliteDatabase(sqlitePath(database.url));
  const accountId = json(runBms(['accounts', 'create', '--name', 'Big', '--json'], env)).id;
  const insert = live.prepare(
    `insert into clients (id, account_id, name, notes, metadata, created_at, updated_at) values (?, ?, ?, ?, '{}', ?, ?)`,
  );
  const now = new Date().toISOString();
  live.transaction(() => {
    for (let index = 0; index < 30_000; index += 1)
      insert.run(
        `00000000-0000-7000-8000-${String(index).padStart(12, '0')}`,
        accountId,
        `Client ${index}`,
        'n'.repeat(2000),
        now,
        now,
      );
  })();
  live.close();
  const expected = 30_000;

  const timed = performance.now();
  const full = await finished(spawnBms(['backup', '--to', path.join(directory, 'full.sqlite'), '--json'], env));
  const fullMs = performance.now() - timed;
  assert.equal(full.code, 0, full.stderr);
  assert.equal(clientIds(path.join(directory, 'full.sqlite')).size, expected);

  const outcomes = { absent: 0, complete: 0 };
  const rounds = 16;
  for (let round = 0; round < rounds; round += 1) {
    const target = path.join(directory, `killed-${round}.sqlite`);
    const child = spawnBms(['backup', '--to', target, '--json'], env);
    const done = finished(child);
    // Kill times spread over the whole run: start-up, the copy, the check, the fsync and the rename.
    // (start-up, loading the command, is about half of a run: the kills start a third of the way in.)
    await new Promise((resolve) => setTimeout(resolve, fullMs * (0.3 + (0.8 * round) / rounds)));
    child.kill('SIGKILL');
    await done;
    if (!fs.existsSync(target)) {
      outcomes.absent += 1;
      continue;
    }
    assert.equal(integrity(target), 'ok', `round ${round}: a file under the name asked for is whole`);
    assert.equal(clientIds(target).size, expected, `round ${round}: and complete`);
    assert.ok(
      !fs.existsSync(`${target}-wal`) && !fs.existsSync(`${target}-journal`),
      `round ${round}: one self-contained file`,
    );
    outcomes.complete += 1;
  }
  // A temporary's own side files (-journal while it is written, -wal and -shm while the check opens it, before it
  // is made a single file) are its files too: a kill then leaves them beside it, never under the name asked for.
  const leftovers = fs
    .readdirSync(directory)
    .filter((name) => name.includes('.tmp-') && !/-(journal|wal|shm)$/.test(name));
  const strays = fs
    .readdirSync(directory)
    .filter(
      (name) =>
        !/^(bms\.sqlite(-wal|-shm)?|full\.sqlite|killed-\d+\.sqlite|\.killed-\d+\.sqlite\.tmp-\d+-[0-9a-f]{8}(-journal|-wal|-shm)?)$/.test(
          name,
        ),
    );
  assert.deepEqual(strays, [], 'nothing but complete backups and files named as temporaries');
  // A temporary left behind means the kill landed after the copy had begun (during it, the check or the fsync).
  console.log(
    `# kill -9 during backup: full run ${Math.round(fullMs)} ms; of ${rounds} kills, ${outcomes.absent} left no file (${leftovers.length} of them mid-copy, leaving a temporary), ${outcomes.complete} a complete one, 0 torn`,
  );
  assert.equal(outcomes.absent + outcomes.complete, rounds);
});

test('SQLite: restore checks what it is given, and migrates a backup made by an older version', {
  skip: onPostgres && 'SQLite only',
}, async () => {
  const directory = temporaryDirectory('bms-restore-');
  cleanups.push(() => fs.rmSync(directory, { recursive: true, force: true }));
  const env = {
    DATABASE_URL: `sqlite:${path.join(directory, 'source.sqlite')}`,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
  };
  json(runBms(['accounts', 'create', '--name', 'Old Co', '--json'], env));
  const good = path.join(directory, 'good.sqlite');
  json(runBms(['backup', '--to', good, '--json'], env));
  const target = (name: string) => ({ ...env, DATABASE_URL: `sqlite:${path.join(directory, `${name}.sqlite`)}` });

  const notSqlite = path.join(directory, 'notes.txt');
  fs.writeFileSync(notSqlite, 'these are not the droids\n'.repeat(200));
  const foreign = path.join(directory, 'foreign.sqlite');
  const other = new SqliteDatabase(foreign);
  other.exec('create table things (id integer primary key)');
  other.close();
  const newer = path.join(directory, 'newer.sqlite');
  fs.copyFileSync(good, newer);
  const future = new SqliteDatabase(newer);
  future
    .prepare('insert into kysely_migration (name, timestamp) values (?, ?)')
    .run('29990101000000_from_the_future', new Date().toISOString());
  future.close();
  // A damaged file: one page of the clients table's index overwritten.
  const damaged = path.join(directory, 'damaged.sqlite');
  fs.copyFileSync(good, damaged);
  const probe = new SqliteDatabase(damaged, { readonly: true });
  const pageSize = probe.pragma('page_size', { simple: true }) as number;
  const rootPage = probe
    .prepare(`select rootpage from sqlite_master where type = 'index' and tbl_name = 'clients' order by name limit 1`)
    .pluck()
    .get() as number;
  assert.ok(rootPage > 1);
  probe.close();
  const handle = fs.openSync(damaged, 'r+');
  fs.writeSync(handle, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (rootPage - 1) * pageSize);
  fs.closeSync(handle);

  const cases: Array<[string, string[], RegExp, number]> = [
    [
      'a missing file',
      ['restore', '--from', path.join(directory, 'nope.sqlite')],
      /There is no file at .*nope\.sqlite/,
      1,
    ],
    ['a text file', ['restore', '--from', notSqlite], /notes\.txt is not a SQLite database/, 1],
    [
      "another application's database",
      ['restore', '--from', foreign],
      /is a SQLite database but not a BMS one: it has no migrations table/,
      1,
    ],
    [
      "a newer BMS's database",
      ['restore', '--from', newer],
      /comes from a newer BMS: this version does not know its migration\(s\) 29990101000000_from_the_future/,
      1,
    ],
    ['a damaged database', ['restore', '--from', damaged], /(failed PRAGMA integrity_check|is damaged)/, 1],
    ['no --from', ['restore'], /--from is required/, 2],
    ['no --to', ['backup'], /--to is required/, 2],
  ];
  for (const [label, args, message, status] of cases) {
    const result = runBms(args, target('never'));
    assert.equal(result.status, status, `${label}: ${result.stderr}`);
    assert.match(result.stderr, message, label);
  }
  assert.ok(!fs.existsSync(path.join(directory, 'never.sqlite')), 'a refused restore creates nothing');
  assert.deepEqual(
    fs.readdirSync(directory).filter((name) => name.includes('.tmp-')),
    [],
    'nor leaves a temporary',
  );
  assert.match(runBms(['backup', '--to', good], env).stderr, /already exists: choose a new name, or pass --force/);
  assert.match(runBms(['backup', '--to', sqlitePath(env.DATABASE_URL)], env).stderr, /--to names the live database/);
  assert.match(
    runBms(['backup', '--to', path.join(directory, 'no-such-folder', 'b.sqlite')], env).stderr,
    /The folder .*no-such-folder does not exist/,
  );
  assert.match(
    runBms(['backup', '--to', path.join(directory, 'b.sqlite')], target('empty')).stderr,
    /There is no database at .*empty\.sqlite/,
  );

  // A backup from before the last migration: restored, then migrated to this version's level.
  const older = path.join(directory, 'older.sqlite');
  fs.copyFileSync(good, older);
  const last = knownMigrationNames().at(-1)!;
  const downgrade = new Kysely<any>({ dialect: new SqliteDialect({ database: new SqliteDatabase(older) }) });
  await ((await import(`../src/db/migrations/${last}.js`)) as Migration).down!(downgrade);
  await downgrade.deleteFrom('kysely_migration').where('name', '=', last).execute();
  await downgrade.destroy();
  const migrated = json(runBms(['restore', '--from', older, '--json'], target('migrated')));
  assert.deepEqual(migrated.applied, [last]);
  assert.ok(migrated.migration < last, `restored at ${migrated.migration}, before ${last}`);
  assert.deepEqual(json(runBms(['migrate', '--json'], target('migrated'))), { applied: [] });
  assert.equal(integrity(path.join(directory, 'migrated.sqlite')), 'ok');

  // Prose output without --json.
  assert.match(
    runBms(['backup', '--to', path.join(directory, 'prose.sqlite')], env).stdout,
    /^Backed up .*source\.sqlite to .*prose\.sqlite \(\d+ bytes, migration \d+_\w+, integrity ok\) in \d+ ms\./,
  );
});

/** The PostgreSQL client binaries, where scripts/postgres.mjs finds the server's. */
function postgresBinary(name: string): string {
  for (const directory of (process.env.PATH ?? '').split(':'))
    if (fs.existsSync(path.join(directory, name))) return path.join(directory, name);
  const versions = fs.existsSync('/usr/lib/postgresql') ? fs.readdirSync('/usr/lib/postgresql').sort().reverse() : [];
  for (const version of versions)
    if (fs.existsSync(path.join('/usr/lib/postgresql', version, 'bin', name)))
      return path.join('/usr/lib/postgresql', version, 'bin', name);
  throw new Error(`${name} not found`);
}

test('PostgreSQL: backup and restore point at pg_dump and pg_restore, and the commands they print restore a working database', {
  skip: !onPostgres && 'PostgreSQL only (SQLite: the tests above)',
}, async () => {
  const directory = temporaryDirectory('bms-pgdump-');
  cleanups.push(() => fs.rmSync(directory, { recursive: true, force: true }));
  const database = await createTestDatabase(directory);
  cleanups.push(() => database.drop());
  const env = { DATABASE_URL: database.url, NODE_ENV: 'production', LOG_LEVEL: 'warn' };
  const server = await startServer(env);
  cleanups.push(() => stop(server));
  const key = makeKey(env);
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  for (let index = 0; index < 20; index += 1)
    assert.equal(
      (
        await fetch(`${server.baseUrl}/v1/clients`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: `PG ${index}` }),
        })
      ).status,
      201,
    );

  const backup = runBms(['backup', '--to', path.join(directory, 'x.sqlite')], env);
  assert.equal(backup.status, 1);
  assert.match(backup.stderr, /bms backup copies SQLite databases; DATABASE_URL names a PostgreSQL one/);
  assert.match(
    backup.stderr,
    /pg_dump --format=custom --no-owner --no-privileges --file=bms-\$\(date -u \+%Y%m%dT%H%M%SZ\)\.dump "\$DATABASE_URL"/,
  );
  assert.ok(!backup.stderr.includes(database.url), 'the message never prints the URL (it may hold a password)');
  assert.match(JSON.parse(runBms(['backup', '--to', 'x', '--json'], env).stderr).error, /pg_dump/);
  const restore = runBms(['restore', '--from', 'x.dump'], env);
  assert.equal(restore.status, 1);
  assert.match(restore.stderr, /pg_restore --no-owner --no-privileges --exit-on-error --single-transaction --dbname=/);

  // The advised commands, run while the server is up, then the restored copy served by a new server.
  const dump = path.join(directory, 'bms.dump');
  execFileSync(postgresBinary('pg_dump'), [
    '--format=custom',
    '--no-owner',
    '--no-privileges',
    `--file=${dump}`,
    database.url,
  ]);
  const copy = await createTestDatabase(directory);
  cleanups.push(() => copy.drop());
  execFileSync(postgresBinary('pg_restore'), [
    '--no-owner',
    '--no-privileges',
    '--exit-on-error',
    '--single-transaction',
    `--dbname=${copy.url}`,
    dump,
  ]);
  assert.deepEqual(json(runBms(['migrate', '--json'], { ...env, DATABASE_URL: copy.url })), { applied: [] });
  const client = new pg.Client({ connectionString: copy.url });
  await client.connect();
  try {
    assert.equal(Number((await client.query('select count(*) as count from clients')).rows[0].count), 20);
  } finally {
    await client.end();
  }
  const restored = await startServer({ ...env, DATABASE_URL: copy.url });
  cleanups.push(() => stop(restored));
  const listed = await (await fetch(`${restored.baseUrl}/v1/clients?limit=100`, { headers })).json();
  assert.equal(listed.data.length, 20);
});
