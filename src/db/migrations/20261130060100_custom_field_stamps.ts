// A stamp per (account, kind) of custom field definitions, the database's own: a trigger gives it a new random
// value at every insert, update or delete of a definition, whoever writes it (BMS, another process, a hand in
// psql). modules/custom-fields/definitions.ts keeps the definitions it read with their stamp where it cannot keep
// them by SQLite's data version (PostgreSQL, a transaction), and reads the stamp with them in one round trip:
// the definitions' rows come back only when the stamp moved. Existing definitions get their stamps here.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';
import { dialectOf } from '../database.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  const postgres = dialectOf(db) === 'postgres';
  await db.schema
    .createTable('custom_field_stamps')
    .addColumn('account_id', types.id, (column) => column.notNull())
    .addColumn('resource', 'text', (column) => column.notNull())
    .addColumn('stamp', 'text', (column) => column.notNull())
    .addPrimaryKeyConstraint('custom_field_stamps_pkey', ['account_id', 'resource'])
    .execute();
  const fresh = postgres ? sql`md5(random()::text || clock_timestamp()::text)` : sql`lower(hex(randomblob(16)))`;
  await sql`insert into custom_field_stamps (account_id, resource, stamp)
    select account_id, resource, ${fresh} from custom_fields group by account_id, resource`.execute(db);
  if (postgres) {
    await sql`create function custom_field_stamp() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' then
          insert into custom_field_stamps (account_id, resource, stamp)
            values (old.account_id, old.resource, md5(random()::text || clock_timestamp()::text))
            on conflict (account_id, resource) do update set stamp = excluded.stamp;
        else
          insert into custom_field_stamps (account_id, resource, stamp)
            values (new.account_id, new.resource, md5(random()::text || clock_timestamp()::text))
            on conflict (account_id, resource) do update set stamp = excluded.stamp;
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger custom_field_stamp after insert or update or delete on custom_fields
      for each row execute function custom_field_stamp()`.execute(db);
    return;
  }
  for (const [event, row] of [
    ['insert', 'new'],
    ['update', 'new'],
    ['delete', 'old'],
  ] as const)
    await sql`create trigger ${sql.id(`custom_field_stamp_${event}`)} after ${sql.raw(event)} on custom_fields
      begin
        insert into custom_field_stamps (account_id, resource, stamp)
          values (${sql.raw(row)}.account_id, ${sql.raw(row)}.resource, lower(hex(randomblob(16))))
          on conflict (account_id, resource) do update set stamp = excluded.stamp;
      end`.execute(db);
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    await sql`drop trigger custom_field_stamp on custom_fields`.execute(db);
    await sql`drop function custom_field_stamp()`.execute(db);
  } else
    for (const event of ['insert', 'update', 'delete'])
      await sql`drop trigger ${sql.id(`custom_field_stamp_${event}`)}`.execute(db);
  await db.schema.dropTable('custom_field_stamps').execute();
}
