// Issue 36: the version of an account's webhook endpoints is a new random number at each change, no longer
// the last one plus one. A process keeps the account's subscribers under the version it read them at
// (`events/subscriber-cache.ts`), sometimes inside a transaction that changed an endpoint; when that
// transaction rolled back, the next committed change gave the same number again, and the process took its
// list, read in the rolled-back transaction, for the new one. A random version (53 bits, JavaScript's exact
// integers) is never given twice in practice, committed or not.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.js';

const TRIGGERS = ['insert', 'delete', 'update'] as const;

/** The function (PostgreSQL) or triggers (SQLite) that set the version, to `next` of the current one. */
async function setVersionWith(db: Kysely<any>, next: string): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    await sql`create or replace function raise_webhook_endpoints_version() returns trigger language plpgsql as $$
      begin
        if tg_op <> 'INSERT' then
          update accounts set webhook_endpoints_version = ${sql.raw(next)} where id = old.account_id;
        end if;
        if tg_op <> 'DELETE' and (tg_op = 'INSERT' or new.account_id <> old.account_id) then
          update accounts set webhook_endpoints_version = ${sql.raw(next)} where id = new.account_id;
        end if;
        return null;
      end $$`.execute(db);
    return;
  }
  for (const name of TRIGGERS) await sql`drop trigger ${sql.raw(`webhook_endpoints_version_${name}`)}`.execute(db);
  const set = (row: 'new' | 'old') =>
    sql.raw(`update accounts set webhook_endpoints_version = ${next} where id = ${row}.account_id;`);
  await sql`create trigger webhook_endpoints_version_insert after insert on webhook_endpoints begin ${set('new')} end`.execute(
    db,
  );
  await sql`create trigger webhook_endpoints_version_delete after delete on webhook_endpoints begin ${set('old')} end`.execute(
    db,
  );
  await sql`create trigger webhook_endpoints_version_update after update of status, enabled_events, account_id on webhook_endpoints begin ${set('old')} ${set('new')} end`.execute(
    db,
  );
}

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    await sql`alter table accounts alter column webhook_endpoints_version type bigint`.execute(db);
    await setVersionWith(db, 'floor(random() * 9007199254740991)::bigint');
  } else {
    await setVersionWith(db, 'abs(random() % 9007199254740991)');
  }
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await sql`update accounts set webhook_endpoints_version = 0`.execute(db);
  await setVersionWith(db, 'webhook_endpoints_version + 1');
  if (dialectOf(db) === 'postgres')
    await sql`alter table accounts alter column webhook_endpoints_version type integer`.execute(db);
}
