// Installs whose refresh token lapsed (docs/api-contract.md §25): a family's one live refresh token unused for its
// 90 days ends the install (`expired`), in one transaction as every uninstall (its tokens revoked, queued deliveries
// dropped, `app.uninstalled` recorded and delivered to the app). The worker runs `uninstallLapsed` in passes.
import { sql } from 'kysely';
import type { Executor } from '../../db/index.js';
import { type Context, type Runtime, SYSTEM_ACTOR } from '../../kernel/context.js';
import { uninstall } from './uninstall.js';

/** One pass's batch: each lapsed install is its own transaction. */
const BATCH = 100;

/**
 * The live refresh tokens expired by `now`, oldest first: a range of oauth_tokens_live_refresh_idx (its predicate
 * spelled as literals, so both engines see the query within it). The query-plan test explains it.
 */
export function lapsedRefreshTokensQuery(db: Executor, now: string, limit: number) {
  return db
    .selectFrom('oauth_tokens')
    .select(['id', 'install_id', 'account_id'])
    .where('kind', '=', sql.lit('refresh'))
    .where('revoked_at', 'is', null)
    .where('superseded_at', 'is', null)
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit);
}

/**
 * Uninstalls (`expired`) up to `limit` installs whose live refresh token expired by now, oldest first; answers
 * how many it looked at (fewer than `limit`: none is left).
 */
export async function uninstallLapsed(runtime: Runtime, limit = BATCH): Promise<number> {
  const now = runtime.clock.now().toISOString();
  const lapsed = await lapsedRefreshTokensQuery(runtime.db, now, limit).execute();
  for (const token of lapsed) {
    const ctx: Context = { ...runtime, accountId: token.account_id, actor: SYSTEM_ACTOR };
    await uninstall(ctx, token.install_id, 'expired');
    // A token left live by an install that had already ended is ended too, so no pass finds it again.
    await runtime.db
      .updateTable('oauth_tokens')
      .set({ revoked_at: now })
      .where('id', '=', token.id)
      .where('revoked_at', 'is', null)
      .execute();
  }
  return lapsed.length;
}
