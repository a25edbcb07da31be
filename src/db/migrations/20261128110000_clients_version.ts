// Issue 36, SQLite only: a client row's version, a number every change of the row raises, so a list can read
// each row's id and version and take the row itself from the memory of rows it has read before
// (clients.repository.ts, listClients) instead of making its twelve values into strings again. A trigger
// raises it after any UPDATE that leaves it as it was — BMS's own, the property triggers' change of
// property_ids, a shell's — so no writer can change a row and keep its version. PostgreSQL reads its page
// whole as before (its list meets its target, and its rows are made outside BMS's process).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') return;
  await sql`alter table clients add column version integer not null default 0`.execute(db);
  await sql
    .raw(`create trigger clients_version after update on clients when new.version = old.version begin
    update clients set version = old.version + 1 where rowid = new.rowid;
  end`)
    .execute(db);
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') return;
  await sql`drop trigger clients_version`.execute(db);
  await sql`alter table clients drop column version`.execute(db);
}
