// Read-only figures about the two delivery queues for /metrics: how many items wait, and how long the
// most overdue one has been due. Across every account and instance (they read the shared tables).
// Both are counted on the queues' own indexes: outbox_due_idx (status, next_attempt_at) and the partial
// webhook_deliveries_due_idx (next_attempt_at where status = 'pending').
import { sql } from 'kysely';
import type { Executor } from './database.js';

export interface QueueStats {
  /** Items not yet finished: e-mails pending or being sent; webhook attempts waiting or in flight. */
  depth: number;
  /** Seconds since the oldest due item became due (0 when none is due). */
  oldestDueAgeSeconds: number;
}

function statsOf(row: { depth: unknown; oldest_due: unknown } | undefined, now: Date): QueueStats {
  const oldest =
    row?.oldest_due === null || row?.oldest_due === undefined ? undefined : new Date(String(row.oldest_due));
  return {
    depth: Number(row?.depth ?? 0),
    oldestDueAgeSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
  };
}

export async function outboxQueueStats(db: Executor, now: Date): Promise<QueueStats> {
  const at = now.toISOString();
  const result = await sql<{ depth: unknown; oldest_due: unknown }>`
    select count(*) as depth, min(case when next_attempt_at <= ${at} then next_attempt_at end) as oldest_due
    from outbox_messages where status in ('pending', 'sending')`.execute(db);
  return statsOf(result.rows[0], now);
}

export async function webhookQueueStats(db: Executor, now: Date): Promise<QueueStats> {
  const at = now.toISOString();
  const result = await sql<{ depth: unknown; oldest_due: unknown }>`
    select count(*) as depth, min(case when next_attempt_at <= ${at} then next_attempt_at end) as oldest_due
    from webhook_deliveries where status = 'pending'`.execute(db);
  return statsOf(result.rows[0], now);
}
