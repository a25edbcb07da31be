// Issue 36: a version of each account's webhook endpoints, raised by the database itself on every insert,
// delete, and change of an endpoint's status, subscription or account, from whichever process made it. A
// process keeps the account's enabled endpoints in memory while the version is unchanged (one primary-key
// read per event instead of the fan-out statement, when none subscribes): `events/subscriber-cache.ts`.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('webhook_endpoints_version', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  if (dialectOf(db) === 'postgres') {
    await sql`create function raise_webhook_endpoints_version() returns trigger language plpgsql as $$
      begin
        if tg_op <> 'INSERT' then
          update accounts set webhook_endpoints_version = webhook_endpoints_version + 1 where id = old.account_id;
        end if;
        if tg_op <> 'DELETE' and (tg_op = 'INSERT' or new.account_id <> old.account_id) then
          update accounts set webhook_endpoints_version = webhook_endpoints_version + 1 where id = new.account_id;
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger webhook_endpoints_version after insert or delete or update of status, enabled_events, account_id
      on webhook_endpoints for each row execute function raise_webhook_endpoints_version()`.execute(db);
    return;
  }
  const raise = (row: 'new' | 'old') =>
    sql.raw(
      `update accounts set webhook_endpoints_version = webhook_endpoints_version + 1 where id = ${row}.account_id;`,
    );
  await sql`create trigger webhook_endpoints_version_insert after insert on webhook_endpoints begin ${raise('new')} end`.execute(
    db,
  );
  await sql`create trigger webhook_endpoints_version_delete after delete on webhook_endpoints begin ${raise('old')} end`.execute(
    db,
  );
  await sql`create trigger webhook_endpoints_version_update after update of status, enabled_events, account_id on webhook_endpoints begin ${raise('old')} ${raise('new')} end`.execute(
    db,
  );
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    await sql`drop trigger webhook_endpoints_version on webhook_endpoints`.execute(db);
    await sql`drop function raise_webhook_endpoints_version()`.execute(db);
  } else {
    for (const name of ['insert', 'delete', 'update'])
      await sql`drop trigger ${sql.raw(`webhook_endpoints_version_${name}`)}`.execute(db);
  }
  await db.schema.alterTable('accounts').dropColumn('webhook_endpoints_version').execute();
}
