// Time zones, external ids and team members (docs/api-contract.md §14, §15). Every existing account gets
// `timezone = 'UTC'`, so nothing changes until one is set. `external_id` (the integrator's own id) is unique
// per account and kind, through a partial unique index that also answers the `external_id=` filter. Team
// members: their table, the sort indexes of their list, and the e-mail unique case-insensitively among
// active members.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/** The tables that gain `external_id` here; each later kind (properties, visits, …) adds its own. */
const EXTERNAL_ID_TABLES = ['clients', 'quotes', 'jobs', 'invoices'] as const;

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .alterTable('accounts')
    .addColumn('timezone', 'text', (column) => column.notNull().defaultTo('UTC'))
    .execute();

  for (const table of EXTERNAL_ID_TABLES) {
    await db.schema.alterTable(table).addColumn('external_id', 'text').execute();
    await db.schema
      .createIndex(`${table}_external_id_idx`)
      .on(table)
      .columns(['account_id', 'external_id'])
      .unique()
      .where(sql.ref('external_id'), 'is not', null)
      .execute();
  }

  await db.schema
    .createTable('team_members')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('sort_name', 'text', (column) => column.notNull())
    .addColumn('email', 'text')
    .addColumn('phone', 'text')
    .addColumn('role', 'text', (column) => column.notNull())
    .addColumn('color', 'text')
    .addColumn('timezone', 'text', (column) => column.notNull())
    // 1 or 0 on both engines, so both drivers return the same number.
    .addColumn('active', 'integer', (column) => column.notNull().check(sql`active in (0, 1)`))
    .addColumn('external_id', 'text')
    .addColumn('metadata', types.json, (column) => column.notNull())
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  for (const [name, column] of [
    ['created_at', 'created_at'],
    ['updated_at', 'updated_at'],
    ['sort_name', 'sort_name'],
  ] as const) {
    await db.schema
      .createIndex(`team_members_account_${name}_idx`)
      .on('team_members')
      .columns(['account_id', column, 'id'])
      .execute();
  }
  await db.schema
    .createIndex('team_members_external_id_idx')
    .on('team_members')
    .columns(['account_id', 'external_id'])
    .unique()
    .where(sql.ref('external_id'), 'is not', null)
    .execute();
  // Unique among active members only: a deactivated member's address may be given to a new one.
  await db.schema
    .createIndex('team_members_active_email_idx')
    .on('team_members')
    .expression(sql`account_id, lower(email)`)
    .unique()
    .where(sql<boolean>`active = 1 and email is not null`)
    .execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('team_members').execute();
  for (const table of EXTERNAL_ID_TABLES) {
    await db.schema.dropIndex(`${table}_external_id_idx`).execute();
    await db.schema.alterTable(table).dropColumn('external_id').execute();
  }
  await db.schema.alterTable('accounts').dropColumn('timezone').execute();
}
