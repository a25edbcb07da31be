// The database a test uses: a SQLite file in its folder, or, in the PostgreSQL pass of `npm test`
// (BMS_TEST_DATABASE=postgres), a new database on the harness's throwaway cluster, dropped afterwards.
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export const onPostgres = process.env.BMS_TEST_DATABASE === 'postgres';

async function administer(statement: string): Promise<unknown[]> {
  const admin = process.env.BMS_TEST_POSTGRES_URL;
  if (!admin) throw new Error('BMS_TEST_POSTGRES_URL is not set: run the tests with `npm test`');
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    return (await client.query(statement)).rows;
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(directory: string): Promise<TestDatabase> {
  if (!onPostgres) return { url: `sqlite:${path.join(directory, 'bms.sqlite')}`, drop: async () => {} };
  const name = `bms_test_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
  await administer(`create database ${name}`);
  const url = (process.env.BMS_TEST_POSTGRES_URL as string).replace(/\/[^/]*$/, `/${name}`);
  return { url, drop: () => administer(`drop database if exists ${name} with (force)`).then(() => {}) };
}

/**
 * A test database already at the latest migration: a copy of a template migrated once per version of the
 * migrations (their files' hash), instead of running every migration again for each test (each one a
 * durable commit: about a second of a test's time on SQLite). The template is built under a name of its
 * own and renamed when whole, so a test never copies one half made by another process; SQLite's is a
 * closed file (no WAL beside it), PostgreSQL's a database no one is connected to (`CREATE DATABASE …
 * TEMPLATE`). The tests of the migrations themselves use `createTestDatabase`.
 */
export async function createMigratedTestDatabase(directory: string): Promise<TestDatabase> {
  const template = `bms_template_${migrationsHash()}`;
  if (!onPostgres) {
    const file = path.join(os.tmpdir(), `${template}.sqlite`);
    if (!fs.existsSync(file)) {
      const building = `${file}.${randomUUID()}`;
      const database = openDatabase({ kind: 'sqlite', path: building });
      await migrateToLatest(database.db);
      await database.close();
      for (const suffix of ['-wal', '-shm']) fs.rmSync(`${building}${suffix}`, { force: true });
      fs.renameSync(building, file);
    }
    const copy = path.join(directory, 'bms.sqlite');
    fs.copyFileSync(file, copy);
    return { url: `sqlite:${copy}`, drop: async () => {} };
  }
  const found = await administer(`select 1 from pg_database where datname = '${template}'`);
  if (found.length === 0) {
    const building = `bms_building_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
    await administer(`create database ${building}`);
    const admin = process.env.BMS_TEST_POSTGRES_URL as string;
    const database = openDatabase({ kind: 'postgres', url: admin.replace(/\/[^/]*$/, `/${building}`), poolMax: 1 });
    await migrateToLatest(database.db);
    await database.close();
    try {
      await administer(`alter database ${building} rename to ${template}`);
    } catch {
      // Another process made it first.
      await administer(`drop database if exists ${building} with (force)`);
    }
  }
  const name = `bms_test_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
  await administer(`create database ${name} template ${template}`);
  const url = (process.env.BMS_TEST_POSTGRES_URL as string).replace(/\/[^/]*$/, `/${name}`);
  return { url, drop: () => administer(`drop database if exists ${name} with (force)`).then(() => {}) };
}

let hash: string | undefined;
/** The migrations' version: a hash of the text of every file of db/ (the migrations and what they import). */
function migrationsHash(): string {
  if (hash !== undefined) return hash;
  const db = fileURLToPath(new URL('../../src/db/', import.meta.url));
  const files = (fs.readdirSync(db, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts'));
  const digest = createHash('sha256');
  for (const file of files.sort()) digest.update(file).update(fs.readFileSync(path.join(db, file)));
  hash = digest.digest('hex').slice(0, 16);
  return hash;
}
