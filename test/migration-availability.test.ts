// The availability migration on a database that already holds accounts and team members, on both engines:
// existing field members become bookable and the others not, every member follows the account's hours (null),
// every account answers working_hours [] and the default booking settings; and back down, the rows stay.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { getAccount } from '../src/modules/accounts/index.js';
import { migratableDatabase } from './helpers/migration.js';

const ACCOUNT = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f11';
const FIELD = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f12';
const OFFICE = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f13';
const NAME = '20261129020000_availability';

test('members made before the migration: field ones bookable, others not, all on the account’s hours', async () => {
  const database = await migratableDatabase();
  try {
    await database.migrateTo(database.before(NAME));
    const now = '2026-11-20T10:00:00.000Z';
    await sql`insert into accounts (id, name, currency, payment_terms_days, created_at, updated_at)
      values (${ACCOUNT}, ${'Old Plumbing'}, ${'USD'}, ${30}, ${now}, ${now})`.execute(database.db);
    for (const [id, role] of [
      [FIELD, 'field'],
      [OFFICE, 'dispatcher'],
    ] as const)
      await sql`insert into team_members (id, account_id, name, sort_name, role, timezone, active, metadata, created_at, updated_at)
        values (${id}, ${ACCOUNT}, ${role}, ${role}, ${role}, ${'UTC'}, ${1}, ${'{}'}, ${now}, ${now})`.execute(
        database.db,
      );
    assert.ok((await database.migrateToLatest()).includes(NAME));
    const members = await database.db
      .selectFrom('team_members')
      .select(['id', 'bookable', 'working_hours'])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      members.map((row) => [row.id, Number(row.bookable), row.working_hours]),
      [
        [FIELD, 1, null],
        [OFFICE, 0, null],
      ],
    );
    const account = await getAccount(database.db, ACCOUNT);
    assert.deepEqual(account.working_hours, []);
    assert.deepEqual(account.booking, {
      slot_step_minutes: 30,
      min_notice_minutes: 60,
      buffer_minutes: 0,
      travel: { mode: 'none', speed_kmh: 30, unknown_location_minutes: 30 },
    });
    await database.migrateTo(database.before(NAME));
    assert.equal((await database.db.selectFrom('team_members').select('id').execute()).length, 2);
  } finally {
    await database.close();
  }
});
