// The kept responses of POSTs made with an Idempotency-Key (src/http/idempotency.ts has the rules). A record
// belongs to an API key, not directly to an account: every query but the expiry sweep names the API key and
// the key string (the table's primary key); the sweep is maintenance across all keys.
import type { Executor } from './database.js';
import type { IdempotencyKeysTable, Timestamp } from './types.js';

export type IdempotencyKeyRow = IdempotencyKeysTable;

/** What a finished request's record keeps for replay. */
export interface KeptResponse {
  response_status: number;
  response_body: string;
  response_location: string | null;
  response_etag: string | null;
}

/** Inserts the record unless one with its API key and key exists; true when this call inserted it. */
export async function insertIdempotencyKey(db: Executor, row: IdempotencyKeyRow): Promise<boolean> {
  const inserted = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((conflicting) => conflicting.columns(['api_key_id', 'key']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function findIdempotencyKey(
  db: Executor,
  apiKeyId: string,
  key: string,
): Promise<IdempotencyKeyRow | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('api_key_id', '=', apiKeyId)
    .where('key', '=', key)
    .executeTakeFirst();
}

/**
 * Deletes the record of an API key and key. With `createdAt`, only the record created then: of two
 * requests replacing the same expired or abandoned record, only one deletes it.
 */
export async function deleteIdempotencyKey(
  db: Executor,
  apiKeyId: string,
  key: string,
  createdAt?: Timestamp,
): Promise<void> {
  let query = db.deleteFrom('idempotency_keys').where('api_key_id', '=', apiKeyId).where('key', '=', key);
  if (createdAt !== undefined) query = query.where('created_at', '=', createdAt);
  await query.execute();
}

/** Marks the record done and keeps the response to replay. */
export async function completeIdempotencyKey(
  db: Executor,
  apiKeyId: string,
  key: string,
  response: KeptResponse,
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .where('api_key_id', '=', apiKeyId)
    .where('key', '=', key)
    .set({
      status: 'done',
      response_status: response.response_status,
      response_body: response.response_body,
      response_location: response.response_location,
      response_etag: response.response_etag,
    })
    .execute();
}

/** Deletes every record (of any API key) that expired before `now`. */
export async function deleteExpiredIdempotencyKeys(db: Executor, now: Timestamp): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('expires_at', '<', now).execute();
}
