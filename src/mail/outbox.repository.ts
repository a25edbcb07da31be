// Outbox queries. A row is claimed by one worker at a time with a single atomic UPDATE (SQLite takes the
// write lock for it; PostgreSQL skips rows another worker has locked), under a lease that expires if the
// worker dies, so a crashed delivery is picked up again.
import { sql } from 'kysely';
import { applyPage, claimLock, type Executor, type PageRequest } from '../db/index.js';
import type { OutboxMessageRow } from '../db/types.js';

export async function enqueueMessage(db: Executor, row: OutboxMessageRow): Promise<void> {
  await db.insertInto('outbox_messages').values(row).execute();
}

/**
 * Claims the next due message (pending and due, or held by a worker whose lease ran out), taking turns between
 * accounts: an account this worker has not served lately goes first, then the one it served
 * longest ago (`recentAccounts`, least recent first), and within an account the oldest message. One account's
 * flood of sends then delays that account, not another's single e-mail.
 */
export async function claimNextMessage(
  db: Executor,
  workerId: string,
  now: string,
  leaseUntil: string,
  recentAccounts: readonly string[] = [],
): Promise<OutboxMessageRow | undefined> {
  const skipLocked = claimLock(db);
  const turn =
    recentAccounts.length === 0
      ? sql``
      : sql`case account_id ${sql.join(
          recentAccounts.map((accountId, index) => sql`when ${accountId} then ${sql.lit(index + 1)}`),
          sql` `,
        )} else 0 end,`;
  const result = await sql<OutboxMessageRow>`
    update outbox_messages set status = 'sending', locked_by = ${workerId}, locked_until = ${leaseUntil}, updated_at = ${now}
    where id = (
      select id from outbox_messages
      where (status = 'pending' and next_attempt_at <= ${now}) or (status = 'sending' and locked_until <= ${now})
      order by ${turn} next_attempt_at, id
      limit 1 ${skipLocked}
    )
    returning *`.execute(db);
  return result.rows[0];
}

/** Each completion applies only while the worker still holds the claim; returns the row, or undefined when it no longer did. */
export async function completeMessage(
  db: Executor,
  id: string,
  workerId: string,
  changes: Partial<OutboxMessageRow>,
): Promise<OutboxMessageRow | undefined> {
  return db
    .updateTable('outbox_messages')
    .set({ ...changes, locked_by: null, locked_until: null })
    .where('id', '=', id)
    .where('locked_by', '=', workerId)
    .where('status', '=', 'sending')
    .returningAll()
    .executeTakeFirst();
}

/** The messages of one document, a page at a time (the deliveries list). */
export async function listDocumentMessages(
  db: Executor,
  accountId: string,
  documentId: string,
  page: PageRequest<OutboxMessageRow>,
): Promise<OutboxMessageRow[]> {
  return applyPage(
    db
      .selectFrom('outbox_messages')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('document_id', '=', documentId),
    page,
  ).execute();
}
