// Issue 36, SQLite only: a new client's search row is written once per group-commit batch, not once per
// request. FTS5 writes the terms it holds in memory to a new segment of its index whenever a savepoint
// opens or is released while it takes part in the transaction, so each create, in its own savepoint, wrote
// a segment of its own (and merged them later): about 40 µs of a durable create's CPU. Now the insert
// trigger queues the client's search_id in `client_search_pending`; the group commit's batch work
// (db/client-search.ts) inserts the queued rows' search text in one statement just before COMMIT, in the
// same transaction, so a client is found by `q` as soon as its create is answered. A request rolled back to
// its savepoint takes its queue row with it. Update and delete still change the FTS row at once (a queued
// row has none yet: the batch's insert reads the client as it is then, and a deleted client's queue row goes
// with it).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { SQLITE_BODY } from '../client-search.js';
import { dialectOf } from '../database.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') return;
  await sql`create table client_search_pending (search_id integer primary key)`.execute(db);
  await sql`drop trigger clients_search_insert`.execute(db);
  await sql
    .raw(`create trigger clients_search_insert after insert on clients begin
    insert into client_search_keys (client_id) values (new.id);
    insert into client_search_pending (search_id) values (last_insert_rowid());
  end`)
    .execute(db);
  await sql`drop trigger clients_search_delete`.execute(db);
  await sql
    .raw(`create trigger clients_search_delete after delete on clients begin
    delete from clients_fts where rowid = (select search_id from client_search_keys where client_id = old.id);
    delete from client_search_pending where search_id = (select search_id from client_search_keys where client_id = old.id);
    delete from client_search_keys where client_id = old.id;
  end`)
    .execute(db);
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') return;
  // On SQLite each statement of a migration commits in a batch of its own, and a batch's end indexes what is
  // queued (while the queue's table has its name): the trigger that queues goes first, then the queue is
  // renamed (no batch reads it after that) and whatever it still holds (rows a connection without the batch
  // work left) gets its search row here.
  await sql`drop trigger clients_search_insert`.execute(db);
  await sql
    .raw(`create trigger clients_search_insert after insert on clients begin
    insert into client_search_keys (client_id) values (new.id);
    insert into clients_fts (rowid, body) values (last_insert_rowid(), ${SQLITE_BODY('new')});
  end`)
    .execute(db);
  await sql`drop trigger clients_search_delete`.execute(db);
  await sql
    .raw(`create trigger clients_search_delete after delete on clients begin
    delete from clients_fts where rowid = (select search_id from client_search_keys where client_id = old.id);
    delete from client_search_keys where client_id = old.id;
  end`)
    .execute(db);
  await sql`alter table client_search_pending rename to client_search_pending_down`.execute(db);
  await sql
    .raw(
      `insert into clients_fts (rowid, body) select q.search_id, ${SQLITE_BODY('c')} from client_search_pending_down q cross join client_search_keys k cross join clients c where k.search_id = q.search_id and c.id = k.client_id`,
    )
    .execute(db);
  await sql`drop table client_search_pending_down`.execute(db);
}
