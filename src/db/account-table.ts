// Account-scoped access to one table, shared by the resource repositories: every query here filters by
// account_id, so no caller can reach another account's rows by forgetting it.
import type { Insertable, Kysely, Selectable, SelectQueryBuilder, Updateable } from 'kysely';
import { applyPage, type PageRequest } from '../http/pagination.js';
import { isPostgres, type Executor } from './database.js';
import type { Tables } from './types.js';

export type AccountTable = 'clients' | 'service_requests' | 'quotes' | 'jobs' | 'invoices';

export interface AccountTableRepository<T extends AccountTable> {
  insert(db: Executor, row: Insertable<Tables[T]>): Promise<void>;
  /** `lock`: on PostgreSQL, hold the row (FOR UPDATE) until the transaction ends; SQLite's single writer already does. */
  find(db: Executor, accountId: string, id: string, lock?: boolean): Promise<Selectable<Tables[T]> | undefined>;
  update(db: Executor, accountId: string, id: string, patch: Updateable<Tables[T]>): Promise<Selectable<Tables[T]> | undefined>;
  delete(db: Executor, accountId: string, id: string): Promise<boolean>;
  count(db: Executor, accountId: string, column: string, value: string): Promise<number>;
  /** One page of rows; `filter` adds the resource's own conditions to the account-scoped select. */
  list(db: Executor, accountId: string, page: PageRequest, filter: (query: AnySelect) => AnySelect): Promise<Array<Selectable<Tables[T]>>>;
}

// `any`: Kysely cannot type a query over a table chosen by a type parameter; the public interface above
// restores the row types, and the column names used here exist on every account table.
export type AnySelect = SelectQueryBuilder<any, any, any>;

export function accountTable<T extends AccountTable>(table: T): AccountTableRepository<T> {
  type Row = Selectable<Tables[T]>;
  const untyped = (db: Executor) => db as unknown as Kysely<any>;
  const name: string = table;
  return {
    async insert(db, row) {
      await untyped(db).insertInto(name).values(row).execute();
    },
    async find(db, accountId, id, lock = false) {
      const query = untyped(db).selectFrom(name).selectAll().where('account_id', '=', accountId).where('id', '=', id);
      return (lock && isPostgres(db) ? query.forUpdate() : query).executeTakeFirst() as Promise<Row | undefined>;
    },
    async update(db, accountId, id, patch) {
      return untyped(db).updateTable(name).set(patch as Record<string, unknown>).where('account_id', '=', accountId).where('id', '=', id).returningAll().executeTakeFirst() as Promise<Row | undefined>;
    },
    async delete(db, accountId, id) {
      const result = await untyped(db).deleteFrom(name).where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
    async count(db, accountId, column, value) {
      const row = await untyped(db).selectFrom(name).select((eb) => eb.fn.countAll().as('count')).where('account_id', '=', accountId).where(column, '=', value).executeTakeFirst();
      return Number(row?.count ?? 0);
    },
    async list(db, accountId, page, filter) {
      const query = filter(untyped(db).selectFrom(name).selectAll().where('account_id', '=', accountId));
      return applyPage(query, page).execute() as Promise<Row[]>;
    },
  };
}
