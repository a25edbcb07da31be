// Issue 36, SQLite only: a client's property ids, oldest first, kept in a column of the client's row by
// triggers on properties, instead of a correlated subquery per row read. A list of 25 clients ran the
// subquery 26 times, one seek of properties' index each: 30-55 µs of the list's ~300 µs of CPU (measured
// with the list's subquery replaced by the column). The triggers write exactly what the subquery read
// (json_group_array over the client's properties by created_at, id), in the transaction that changes a
// property, so GET and the list show the same ids as before. PostgreSQL keeps its subquery (its list meets
// its target, and the database's work runs outside BMS's process there).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.js';

/** The ids of the client `clients` (the row being updated), as the old subquery read them. */
const IDS =
  '(select json_group_array(p.id order by p.created_at, p.id) from properties p where p.account_id = clients.account_id and p.client_id = clients.id)';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') return;
  await sql`alter table clients add column property_ids text not null default '[]'`.execute(db);
  await sql.raw(`update clients set property_ids = ${IDS} where id in (select client_id from properties)`).execute(db);
  await sql
    .raw(`create trigger properties_client_ids_insert after insert on properties begin
    update clients set property_ids = ${IDS} where id = new.client_id;
  end`)
    .execute(db);
  await sql
    .raw(`create trigger properties_client_ids_delete after delete on properties begin
    update clients set property_ids = ${IDS} where id = old.client_id;
  end`)
    .execute(db);
  await sql
    .raw(`create trigger properties_client_ids_update after update of client_id, account_id, created_at, id on properties begin
    update clients set property_ids = ${IDS} where id in (old.client_id, new.client_id);
  end`)
    .execute(db);
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') return;
  for (const trigger of [
    'properties_client_ids_insert',
    'properties_client_ids_delete',
    'properties_client_ids_update',
  ])
    await sql`drop trigger ${sql.raw(trigger)}`.execute(db);
  await sql`alter table clients drop column property_ids`.execute(db);
}
