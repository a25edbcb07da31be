// The database a test uses: a SQLite file in its folder, or, in the PostgreSQL pass of `npm test`
// (BMS_TEST_DATABASE=postgres), a new database on the harness's throwaway cluster, dropped afterwards.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export const onPostgres = process.env.BMS_TEST_DATABASE === 'postgres';

async function administer(statement: string): Promise<void> {
  const admin = process.env.BMS_TEST_POSTGRES_URL;
  if (!admin) throw new Error('BMS_TEST_POSTGRES_URL is not set: run the tests with `npm test`');
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(directory: string): Promise<TestDatabase> {
  if (!onPostgres) return { url: `sqlite:${path.join(directory, 'bms.sqlite')}`, drop: async () => {} };
  const name = `bms_test_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
  await administer(`create database ${name}`);
  const url = (process.env.BMS_TEST_POSTGRES_URL as string).replace(/\/[^/]*$/, `/${name}`);
  return { url, drop: () => administer(`drop database if exists ${name} with (force)`) };
}
