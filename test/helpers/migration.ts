// A database of its own for testing a migration on data an older version stored: opened with every migration
// known to a Kysely Migrator and none run, so a test migrates to the version before, writes rows as that
// version wrote them, migrates up (and down) and reads what they became. On both engines, like every test.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { type Kysely, Migrator, sql } from 'kysely';
import { loadConfig, type Config } from '../../src/config.js';
import { openDatabase, type Database, type Db } from '../../src/db/database.js';
import { MIGRATIONS } from '../../src/db/migrate.js';
import { temporaryDirectory } from './context.js';
import { createTestDatabase, onPostgres } from './database.js';

export interface MigratableDatabase {
  /** The test's own folder (the SQLite file and the outbox live there); removed by close(). */
  directory: string;
  config: Config;
  database: Database;
  db: Db;
  /** The migration just before `name`: the version a test's old rows come from. */
  before(name: string): string;
  /** Migrates up or down to `name`, failing the test on an error. */
  migrateTo(name: string): Promise<void>;
  /** Runs every migration not yet run, failing the test on an error; answers the names it ran. */
  migrateToLatest(): Promise<string[]>;
  close(): Promise<void>;
}

export async function migratableDatabase(): Promise<MigratableDatabase> {
  const directory = temporaryDirectory();
  const testDatabase = await createTestDatabase(directory);
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: testDatabase.url,
    OUTBOX_DIR: path.join(directory, 'outbox'),
  });
  const database = openDatabase(config.database);
  const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => MIGRATIONS } });
  const names = Object.keys(MIGRATIONS);
  return {
    directory,
    config,
    database,
    db: database.db,
    before(name) {
      const index = names.indexOf(name);
      assert.ok(index > 0, `${name} is a migration with one before it`);
      return names[index - 1]!;
    },
    async migrateTo(name) {
      assert.equal((await migrator.migrateTo(name)).error, undefined, `migrating to ${name}`);
    },
    async migrateToLatest() {
      const { error, results } = await migrator.migrateToLatest();
      assert.equal(error, undefined, 'migrating to the latest');
      return (results ?? []).map((result) => result.migrationName);
    },
    async close() {
      await database.close();
      await testDatabase.drop();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** An account as every schema stores one (USD, 30 days' terms): the account a migration test's old rows belong to. */
export async function insertOldAccount(db: Db, id: string, name: string, now: string): Promise<void> {
  await sql`insert into accounts (id, name, currency, payment_terms_days, created_at, updated_at)
    values (${id}, ${name}, ${'USD'}, ${30}, ${now}, ${now})`.execute(db);
}

/**
 * A team member named Maria as every schema with time entries stores one: the member a migration test's old
 * time entries name.
 */
export async function insertOldMember(db: Db, accountId: string, id: string, now: string): Promise<void> {
  await db
    .insertInto('team_members')
    .values({
      id,
      account_id: accountId,
      name: 'Maria',
      sort_name: 'maria',
      email: null,
      phone: null,
      role: 'field',
      color: null,
      timezone: 'UTC',
      active: 1,
      external_id: null,
      metadata: '{}',
      created_at: now,
      updated_at: now,
    })
    .execute();
}

/**
 * An account (USD, 30 days' terms) as every schema since the ledger stores one, and the maker of its client's
 * ledger entries as those schemas store them: `entry(sequence, fields)` has every column zero or null but `fields`
 * (a later schema's columns among them); its id ends in `idOffset + sequence`.
 */
export async function oldLedger(
  db: Kysely<any>,
  accountId: string,
  clientId: string,
  now: string,
  idOffset = 0,
): Promise<(sequence: number, fields: Record<string, unknown>) => Record<string, unknown>> {
  await sql`insert into accounts (id, name, currency, payment_terms_days, created_at, updated_at)
    values (${accountId}, ${'Old books'}, ${'USD'}, ${30}, ${now}, ${now})`.execute(db);
  return (sequence, fields) => ({
    id: `019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f${String(sequence + idOffset).padStart(2, '0')}`,
    account_id: accountId,
    sequence,
    client_id: clientId,
    currency: 'USD',
    amount: 0,
    applied_amount: 0,
    balance_amount: 0,
    invoice_id: null,
    credit_note_id: null,
    payment_id: null,
    refund_id: null,
    application_id: null,
    due_date: null,
    net_amount: null,
    tax_amount: null,
    cost_amount: null,
    taxes: null,
    actor: '{"type":"system","id":null}',
    created_at: now,
    ...fields,
  });
}

/**
 * A new account's invoice of 123.45 to Acme, sent, made by this version's services on a database migrated to the
 * latest (for a migration whose down keeps such rows): the test then migrates down to the version before it.
 */
export async function sentInvoiceAtLatest(database: MigratableDatabase, accountName: string) {
  await database.migrateToLatest();
  const { systemClock } = await import('../../src/core/deps.js');
  const { SYSTEM_ACTOR } = await import('../../src/kernel/context.js');
  const { createAccount } = await import('../../src/modules/accounts/index.js');
  const { createClient } = await import('../../src/modules/clients/clients.service.js');
  const { createInvoice, getInvoice, SENDABLE_INVOICE } = await import('../../src/modules/invoices/index.js');
  const { sendDocument } = await import('../../src/modules/sent-documents/index.js');
  const account = await createAccount(database.db, systemClock, { name: accountName });
  const ctx = {
    db: database.db,
    clock: systemClock,
    links: { publicBaseUrl: 'http://127.0.0.1:3000' },
    accountId: account.id,
    actor: SYSTEM_ACTOR,
  };
  const client = await createClient(ctx, { name: 'Acme', email: 'ap@acme.example' });
  const invoice = await createInvoice(ctx, {
    client_id: client.id,
    line_items: [{ description: 'Service', quantity: 1, unit_amount: 12345 }],
  });
  await sendDocument(ctx, SENDABLE_INVOICE, invoice.id, undefined);
  return { account, invoice, read: (at = new Date()) => getInvoice(ctx, invoice.id, at) };
}

/**
 * An index's key columns, in order: SQLite's from `pragma_index_info`, PostgreSQL's from its definition (the
 * first parenthesis, so a partial index's `WHERE` is not read as columns); none when there is no such index.
 */
export async function indexColumns(db: Kysely<any>, index: string): Promise<string[]> {
  if (!onPostgres) {
    const rows = await sql<{ name: string }>`select name from pragma_index_info(${index}) order by seqno`.execute(db);
    return rows.rows.map((row) => row.name);
  }
  const rows = await sql<{ indexdef: string }>`select indexdef from pg_indexes where indexname = ${index}`.execute(db);
  const definition = rows.rows[0]?.indexdef ?? '';
  const inside = definition.slice(definition.indexOf('(') + 1, definition.indexOf(')'));
  return inside === '' ? [] : inside.split(',').map((column) => column.trim().replaceAll('"', ''));
}
