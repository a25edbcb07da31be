// Uninstalling (docs/api-contract.md §25), from either side, by the app's deletion, by a token's reuse or by
// the operator: one transaction that ends the install, revokes every token of it (the next request with one
// is 401), voids its MCP confirmations, drops its queued deliveries and records `app.uninstalled` in the installing
// account, which is delivered to the app. What the app wrote stays.
import type { AppInstallRow, AppRow } from '../../db/types.js';
import { type Context, inTransaction } from '../../kernel/context.js';
import { endInstallEndpoint, recordEvent } from '../events/index.js';
import * as repository from './apps.repository.js';
import { presentInstall } from './present-install.js';
import { forgetInstallTokens } from './token-cache.js';

export type UninstallReason = 'business' | 'app' | 'app_deleted' | 'token_reuse' | 'expired' | 'suspended';

/** Uninstalls in the caller's transaction; `ctx.accountId` is the installing account. An uninstalled one is left. */
export async function uninstallInTransaction(
  ctx: Context,
  install: AppInstallRow,
  app: AppRow,
  reason: UninstallReason,
): Promise<AppInstallRow> {
  if (install.status !== 'active') return install;
  const now = ctx.clock.now().toISOString();
  const changes = { status: 'uninstalled', uninstalled_at: now, uninstalled_reason: reason, updated_at: now };
  await repository.updateInstall(ctx.db, install.id, changes);
  await repository.revokeInstallTokens(ctx.db, install.id, now);
  // The MCP server's pending confirmations were made under the install's id (its actor id).
  await ctx.db
    .updateTable('mcp_calls')
    .set({ voided_at: now })
    .where('key_id', '=', install.id)
    .where('voided_at', 'is', null)
    .execute();
  // Its queued deliveries dropped; its endpoint then delivers only the news of this uninstall.
  await endInstallEndpoint(ctx.db, now, install.id);
  const after = { ...install, ...changes };
  const publisherName = await repository.findPublisherName(ctx.db, app.account_id);
  await recordEvent(ctx, 'app.uninstalled', presentInstall(after, app, publisherName), {
    previous_attributes: { status: 'active', uninstalled_at: null, uninstalled_reason: null },
  });
  forgetInstallTokens();
  return after;
}

/** The same in a transaction of its own, reading the install afresh under its lock. */
export async function uninstall(ctx: Context, installId: string, reason: UninstallReason): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    const install = await repository.findInstallById(tx.db, installId, true);
    if (!install || install.status !== 'active') return;
    const app = await repository.findAppById(tx.db, install.app_id);
    if (!app) return;
    await uninstallInTransaction({ ...tx, accountId: install.account_id }, install, app, reason);
  });
}
