// A migrated SQLite file opens in Debian's own `sqlite3` shell (3.40, older than the SQLite that BMS links):
// operators inspect and repair the database with the system's shell, which refuses the whole file when it
// cannot parse one object of the schema. `.ci/run` installs the shell; elsewhere its absence is a visible skip.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { test } from 'node:test';
import { sql } from 'kysely';
import { onPostgres } from './helpers/database.js';
import { migratableDatabase } from './helpers/migration.js';

const SHELL = '/usr/bin/sqlite3';
const installed = fs.existsSync(SHELL);
// CI installs the shell (.ci/run): there, a missing shell is a failure, not a skip.
if (!installed && process.env.CI === 'true' && !onPostgres)
  throw new Error(`${SHELL} is missing: .ci/run installs Debian's sqlite3 package`);

const ACCOUNT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f31';
const CLIENT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f40';
const NOW = '2026-11-20T10:00:00.000Z';

function shell(file: string, statement: string) {
  const run = spawnSync(SHELL, [file, statement], { encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

test("Debian's sqlite3 shell reads a freshly migrated database: its schema and every table", async (t) => {
  if (onPostgres) return t.skip('SQLite only');
  if (!installed)
    return t.skip(`${SHELL} is not installed (Debian's sqlite3 package); set CI=true to make this a failure`);
  const database = await migratableDatabase();
  const file = (database.config.database as { path: string }).path;
  try {
    await database.migrateToLatest();
    const db = database.db;
    await sql`insert into accounts (id, name, currency, payment_terms_days, created_at, updated_at)
      values (${ACCOUNT}, ${'Shell'}, ${'USD'}, ${30}, ${NOW}, ${NOW})`.execute(db);
    await sql`insert into clients (id, account_id, name, sort_name, metadata, created_at, updated_at)
      values (${CLIENT}, ${ACCOUNT}, ${'Owner'}, ${'owner'}, ${'{}'}, ${NOW}, ${NOW})`.execute(db);
    for (const [last, createdAt] of [
      [52, '2026-11-20T10:00:02.000Z'],
      [51, '2026-11-20T10:00:01.000Z'],
      [50, '2026-11-20T10:00:02.000Z'],
    ] as const)
      await sql`insert into properties (id, account_id, client_id, address, search_text, timezone, metadata, created_at, updated_at)
        values (${`019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f${last}`}, ${ACCOUNT}, ${CLIENT}, ${'{}'}, ${''}, ${'UTC'}, ${'{}'}, ${createdAt}, ${createdAt})`.execute(
        db,
      );
  } finally {
    // The file is kept for the shell; its folder is removed at the end.
    await database.database.close();
  }
  t.after(() => fs.rmSync(database.directory, { recursive: true, force: true }));

  const version = shell(file, 'select sqlite_version()');
  t.diagnostic(`${SHELL} ${version.stdout.trim()}`);
  const schema = shell(file, '.schema');
  assert.equal(schema.stderr, '', '.schema writes no error');
  assert.equal(schema.status, 0);
  assert.match(schema.stdout, /CREATE TRIGGER properties_client_ids_insert/i);

  const tables = shell(file, "select name from sqlite_master where type = 'table' order by name");
  assert.equal(tables.stderr, '');
  const names = tables.stdout.split('\n').filter((name) => name !== '');
  assert.ok(names.includes('clients') && names.includes('invoices') && names.length > 30, names.join(', '));
  for (const name of names) {
    const read = shell(file, `select * from "${name}" limit 5`);
    assert.deepEqual([read.status, read.stderr], [0, ''], `select from ${name}`);
  }
  // What the triggers keep reads the same through the shell: the client's properties by created_at, then id.
  assert.equal(
    shell(file, `select property_ids from clients where id = '${CLIENT}'`).stdout.trim(),
    '["019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f51","019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f50","019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f52"]',
  );
  assert.equal(shell(file, 'pragma integrity_check').stdout.trim(), 'ok');
});
