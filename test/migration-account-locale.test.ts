// The account-locale migration on a database that already holds accounts, on both engines: every existing
// account answers locale en-US and the paper of its country (Letter for a US address or none, A4 for a German
// one) until it chooses; the paper column takes only letter or a4.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { getAccount } from '../src/modules/accounts/index.js';
import { migratableDatabase } from './helpers/migration.js';

const US = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01';
const GERMAN = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02';
const NO_ADDRESS = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f03';

test('accounts made before the migration: locale en-US, paper Letter in the US or without an address, A4 in Germany', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateTo(database.before('20261128210000_account_locale'));
    const now = '2026-11-20T10:00:00.000Z';
    for (const [id, name, address] of [
      [US, 'Brooklyn Heating', { line1: '1 Court Street', city: 'Brooklyn', region: 'NY', country: 'US' }],
      [GERMAN, 'Müller Sanitär', { line1: 'Hauptstraße 1', city: 'Berlin', postal_code: '10115', country: 'DE' }],
      [NO_ADDRESS, 'Nowhere Yet', null],
    ] as const)
      await sql`insert into accounts (id, name, currency, payment_terms_days, address, created_at, updated_at)
        values (${id}, ${name}, ${'USD'}, ${30}, ${address && JSON.stringify(address)}, ${now}, ${now})`.execute(
        database.db,
      );
    assert.ok((await database.migrateToLatest()).includes('20261128210000_account_locale'));
    const answered = async (id: string) => {
      const { locale, paper_size, paper_size_source } = await getAccount(database.db, id);
      return [locale, paper_size, paper_size_source];
    };
    assert.deepEqual(await answered(US), ['en-US', 'letter', 'country']);
    assert.deepEqual(await answered(GERMAN), ['en-US', 'a4', 'country']);
    assert.deepEqual(await answered(NO_ADDRESS), ['en-US', 'letter', 'country']);
    const stored = await database.db.selectFrom('accounts').select(['locale', 'paper_size']).execute();
    assert.deepEqual(
      stored.map((row) => [row.locale, row.paper_size]),
      [
        ['en-US', null],
        ['en-US', null],
        ['en-US', null],
      ],
    );
    // The column takes letter or a4 only, whoever writes it.
    await assert.rejects(sql`update accounts set paper_size = ${'legal'} where id = ${US}`.execute(database.db));
    await sql`update accounts set paper_size = ${'a4'} where id = ${US}`.execute(database.db);
    assert.deepEqual(await answered(US), ['en-US', 'a4', 'account']);
    // And back down: the columns go, the accounts stay.
    await database.migrateTo(database.before('20261128210000_account_locale'));
    assert.equal((await database.db.selectFrom('accounts').select('id').execute()).length, 3);
  } finally {
    await database.close();
  }
});
