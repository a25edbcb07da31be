// Queries on API keys. Keys are found by the hash of their secret; the secret itself is never stored.
import {
  type Executor,
  type Listed,
  listPlan,
  lockedIf,
  type PageRequest,
  runList,
  type SortFields,
  timeBoundConditions,
  type TimeBounds,
} from '../../db/index.js';
import type { ApiKeyRow, NewApiKeyRow } from '../../db/types.js';

export const API_KEY_SORTS: SortFields<ApiKeyRow> = {
  created_at: { kind: 'timestamp', value: (row) => row.created_at },
};

export async function insertApiKey(db: Executor, row: NewApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/**
 * A key that can still authenticate, by the hash of its secret or of the secret a roll replaced (whose
 * overlap the caller checks). A revoked key is not found, exactly as an unknown one: the two take the same
 * path, so their timing cannot tell them apart.
 */
export async function findApiKeyByHash(db: Executor, keyHash: string): Promise<ApiKeyRow | undefined> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where((eb) => eb.or([eb('key_hash', '=', keyHash), eb('previous_key_hash', '=', keyHash)]))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Every key of an account, oldest first (the `bms keys list` command). */
export async function listAllApiKeys(db: Executor, accountId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** A page of an account's keys, revoked ones too, from (account_id, created_at, id). */
export async function listApiKeys(
  db: Executor,
  accountId: string,
  bounds: TimeBounds,
  page: PageRequest<ApiKeyRow>,
): Promise<Listed<ApiKeyRow>> {
  return runList(listApiKeysPlan(db, accountId, bounds, page));
}

/** The list's queries, unexecuted: the query-plan test explains each one the list may run. */
export function listApiKeysPlan(db: Executor, accountId: string, bounds: TimeBounds, page: PageRequest<ApiKeyRow>) {
  return listPlan(
    db,
    { table: 'api_keys', columns: API_KEY_COLUMNS, scope: { account_id: accountId } },
    { keys: [], conditions: timeBoundConditions(bounds) },
    page,
  );
}

const API_KEY_COLUMNS = [
  'id',
  'account_id',
  'name',
  'prefix',
  'key_hash',
  'scopes',
  'expires_at',
  'revoked_at',
  'last_used_at',
  'rate_limit_per_minute',
  'rate_limit_per_day',
  'rate_limit_burst',
  'previous_key_hash',
  'previous_key_expires_at',
  'allowed_cidrs',
  'created_by_type',
  'created_by_id',
  'created_at',
  'updated_at',
] as const;

/** A key of the account; `lock` holds it until the transaction ends. */
export async function findAccountApiKey(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<ApiKeyRow | undefined> {
  const query = db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).where('id', '=', id);
  return lockedIf(db, query, lock).executeTakeFirst();
}

/**
 * The keys that minted `row` through the API, parent first, revoked ones too (a child keeps sharing its
 * parent's budget after the parent is revoked). One lookup by primary key per generation.
 */
export async function findMintingKeys(db: Executor, row: ApiKeyRow): Promise<ApiKeyRow[]> {
  const chain: ApiKeyRow[] = [];
  const seen = new Set([row.id]);
  let current = row;
  while (current.created_by_type === 'api_key' && current.created_by_id !== null && !seen.has(current.created_by_id)) {
    const parent = await findAccountApiKey(db, row.account_id, current.created_by_id);
    if (!parent) break;
    chain.push(parent);
    seen.add(parent.id);
    current = parent;
  }
  return chain;
}

/** A key by id alone, for the `bms` command, which acts for the server's operator. */
export async function findApiKey(db: Executor, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateApiKey(
  db: Executor,
  accountId: string,
  id: string,
  patch: Partial<NewApiKeyRow>,
): Promise<ApiKeyRow | undefined> {
  return db
    .updateTable('api_keys')
    .set(patch)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function touchApiKey(db: Executor, id: string, now: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
}
