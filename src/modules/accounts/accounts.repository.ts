// Queries on accounts (the businesses that own every other row).
import type { Executor } from '../../db/database.js';
import type { AccountRow } from '../../db/types.js';

export async function insertAccount(db: Executor, row: AccountRow): Promise<void> {
  await db.insertInto('accounts').values(row).execute();
}

export async function findAccount(db: Executor, id: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countAccounts(db: Executor): Promise<number> {
  const row = await db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  return Number(row.count);
}
