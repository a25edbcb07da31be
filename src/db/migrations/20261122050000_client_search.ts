// docs/api-contract.md §13 for clients: `q` on a trigram index (SQLite FTS5 `trigram`, PostgreSQL `pg_trgm`),
// a case-insensitive name sort from its own column and index, and indexes that serve the e-mail filter
// with the default sort and the short-query prefix fallback.
//
// SQLite: the FTS5 table's rowid is a search_id from `client_search_keys` (an INTEGER PRIMARY KEY, so
// VACUUM never renumbers it, unlike the clients table's implicit rowid); triggers keep both in step with
// every insert, update and delete of a client, in the same transaction.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { POSTGRES_SEARCH_TEXT, SQLITE_BODY } from '../client-search.js';
import { dialectOf } from '../database.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('clients')
    .addColumn('sort_name', 'text', (column) => column.notNull().defaultTo(''))
    .execute();
  // The sort key is the name in lower case as JavaScript folds it (written by the service from now on).
  for (let after = ''; ; ) {
    const rows: Array<{ id: string; name: string }> = await db
      .selectFrom('clients')
      .select(['id', 'name'])
      .where(sql`cast(id as text)`, '>', after)
      .orderBy(sql`cast(id as text)`)
      .limit(1000)
      .execute();
    if (rows.length === 0) break;
    for (const row of rows)
      await db.updateTable('clients').set({ sort_name: row.name.toLowerCase() }).where('id', '=', row.id).execute();
    after = String(rows[rows.length - 1]!.id);
  }
  await db.schema.dropIndex('clients_account_name_idx').execute();
  await db.schema
    .createIndex('clients_account_sort_name_idx')
    .on('clients')
    .columns(['account_id', 'sort_name', 'id'])
    .execute();
  await db.schema.dropIndex('clients_account_email_idx').execute();
  await sql`create index clients_account_email_idx on clients (account_id, lower(email), created_at, id)`.execute(db);
  // The prefix fallback for one- and two-character queries: company and phone (name and e-mail have theirs).
  await sql`create index clients_account_company_idx on clients (account_id, lower(company_name))`.execute(db);
  await sql`create index clients_account_phone_idx on clients (account_id, phone)`.execute(db);

  if (dialectOf(db) === 'postgres') {
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`create index clients_search_trgm_idx on clients using gin ((${sql.raw(POSTGRES_SEARCH_TEXT)}) gin_trgm_ops)`.execute(
      db,
    );
    return;
  }
  await sql`create table client_search_keys (search_id integer primary key, client_id text not null unique)`.execute(
    db,
  );
  await sql`create virtual table clients_fts using fts5(body, tokenize = 'trigram')`.execute(db);
  await sql
    .raw(`create trigger clients_search_insert after insert on clients begin
    insert into client_search_keys (client_id) values (new.id);
    insert into clients_fts (rowid, body) values (last_insert_rowid(), ${SQLITE_BODY('new')});
  end`)
    .execute(db);
  await sql
    .raw(`create trigger clients_search_update after update of name, email, phone, company_name on clients begin
    update clients_fts set body = ${SQLITE_BODY('new')} where rowid = (select search_id from client_search_keys where client_id = new.id);
  end`)
    .execute(db);
  await sql
    .raw(`create trigger clients_search_delete after delete on clients begin
    delete from clients_fts where rowid = (select search_id from client_search_keys where client_id = old.id);
    delete from client_search_keys where client_id = old.id;
  end`)
    .execute(db);
  await sql`insert into client_search_keys (client_id) select id from clients order by id`.execute(db);
  await sql
    .raw(
      `insert into clients_fts (rowid, body) select k.search_id, ${SQLITE_BODY('c')} from clients c join client_search_keys k on k.client_id = c.id`,
    )
    .execute(db);
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    await sql`drop index if exists clients_search_trgm_idx`.execute(db);
  } else {
    for (const trigger of ['clients_search_insert', 'clients_search_update', 'clients_search_delete'])
      await sql`drop trigger if exists ${sql.raw(trigger)}`.execute(db);
    await sql`drop table if exists clients_fts`.execute(db);
    await sql`drop table if exists client_search_keys`.execute(db);
  }
  for (const index of [
    'clients_account_phone_idx',
    'clients_account_company_idx',
    'clients_account_email_idx',
    'clients_account_sort_name_idx',
  ])
    await db.schema.dropIndex(index).execute();
  await sql`create index clients_account_email_idx on clients (account_id, lower(email))`.execute(db);
  await db.schema.createIndex('clients_account_name_idx').on('clients').columns(['account_id', 'name', 'id']).execute();
  await db.schema.alterTable('clients').dropColumn('sort_name').execute();
}
