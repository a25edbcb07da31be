// Queries on API keys. Keys are found by the hash of their secret; the secret itself is never stored.
import type { Executor } from '../../db/database.js';
import type { ApiKeyRow, NewApiKeyRow } from '../../db/types.js';

export async function insertApiKey(db: Executor, row: NewApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/**
 * A key that can still authenticate, by the hash of its secret. A revoked key is not found, exactly as an
 * unknown one: the two take the same path, so their timing cannot tell them apart.
 */
export async function findApiKeyByHash(db: Executor, keyHash: string): Promise<ApiKeyRow | undefined> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

export async function listApiKeys(db: Executor, accountId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function findApiKey(db: Executor, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function markApiKeyRevoked(db: Executor, id: string, now: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: now, updated_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function touchApiKey(db: Executor, id: string, now: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
}
