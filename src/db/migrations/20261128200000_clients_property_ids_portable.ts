// SQLite only: the triggers that keep `clients.property_ids` (20261128080100), rewritten so that SQLite shells
// older than 3.44 can read the schema. Those triggers ordered the ids with an aggregate's own ORDER BY
// (`json_group_array(id order by …)`, SQLite 3.44), and a shell that cannot parse one trigger cannot open the
// file at all (Debian 12's `sqlite3` is 3.40: "malformed database schema"), so operators could not inspect or
// repair the database with the system's shell. The ids are now aggregated from a subquery that orders them:
// SQLite never flattens an ordered subquery into an aggregate query, so the aggregate reads the rows in that
// order (created_at, id), the same order as before. PostgreSQL has neither the column nor the triggers (it reads
// a subquery when it answers), so there is nothing to change there.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.js';

/** The ids of the client `clients` (the row being updated), oldest first, readable by SQLite 3.40. */
const IDS =
  '(select json_group_array(id) from (select p.id from properties p where p.account_id = clients.account_id and p.client_id = clients.id order by p.created_at, p.id))';

/** What 20261128080100 wrote, restored by down. */
const AGGREGATE_ORDER_IDS =
  '(select json_group_array(p.id order by p.created_at, p.id) from properties p where p.account_id = clients.account_id and p.client_id = clients.id)';

async function createTriggers(db: Kysely<any>, ids: string): Promise<void> {
  for (const trigger of [
    'properties_client_ids_insert',
    'properties_client_ids_delete',
    'properties_client_ids_update',
  ])
    await sql`drop trigger if exists ${sql.raw(trigger)}`.execute(db);
  await sql
    .raw(`create trigger properties_client_ids_insert after insert on properties begin
    update clients set property_ids = ${ids} where id = new.client_id;
  end`)
    .execute(db);
  await sql
    .raw(`create trigger properties_client_ids_delete after delete on properties begin
    update clients set property_ids = ${ids} where id = old.client_id;
  end`)
    .execute(db);
  await sql
    .raw(`create trigger properties_client_ids_update after update of client_id, account_id, created_at, id on properties begin
    update clients set property_ids = ${ids} where id in (old.client_id, new.client_id);
  end`)
    .execute(db);
}

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') return;
  await createTriggers(db, IDS);
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') return;
  await createTriggers(db, AGGREGATE_ORDER_IDS);
}
