// The operator's commands on apps (docs/api-contract.md §25; `bms apps set-limits`, `bms apps suspend`,
// `bms apps unsuspend`): an install's rate limits set past what its business may (which only lowers them), the
// suspension of an app, every install of it uninstalled (`suspended`) in one transaction, or of one install, and the
// end of an app's suspension.
import { isUuid } from '../../core/deps.js';
import type { AppInstallRow } from '../../db/types.js';
import { inTransaction, type Runtime, SYSTEM_ACTOR } from '../../kernel/context.js';
import * as repository from './apps.repository.js';
import { forgetInstallTokens } from './token-cache.js';
import { uninstallInTransaction } from './uninstall.js';

export interface InstallRateLimits {
  per_minute: number | null;
  per_day: number | null;
  burst: number | null;
}

function limitsOf(row: AppInstallRow): InstallRateLimits {
  return { per_minute: row.rate_limit_per_minute, per_day: row.rate_limit_per_day, burst: row.rate_limit_burst };
}

/**
 * Sets an install's rate limits, any whole number (null: back to §4's default); undefined when no install has the
 * id. Servers apply it within their token cache's 2 seconds.
 */
export async function setInstallLimits(
  runtime: Runtime,
  installId: string,
  limits: {
    perMinute?: number | null | undefined;
    perDay?: number | null | undefined;
    burst?: number | null | undefined;
  },
): Promise<{ id: string; app_id: string; account_id: string; rate_limits: InstallRateLimits } | undefined> {
  if (!isUuid(installId)) return undefined;
  const row = await inTransaction(runtime, async (tx) => {
    const install = await repository.findInstallById(tx.db, installId, true);
    if (!install) return undefined;
    const changes: Partial<AppInstallRow> = {};
    if (limits.perMinute !== undefined) changes.rate_limit_per_minute = limits.perMinute;
    if (limits.perDay !== undefined) changes.rate_limit_per_day = limits.perDay;
    if (limits.burst !== undefined) changes.rate_limit_burst = limits.burst;
    if (Object.keys(changes).length === 0) return install;
    changes.updated_at = tx.clock.now().toISOString();
    await repository.updateInstall(tx.db, install.id, changes);
    return { ...install, ...changes };
  });
  forgetInstallTokens();
  return row && { id: row.id, app_id: row.app_id, account_id: row.account_id, rate_limits: limitsOf(row) };
}

export interface Suspension {
  id: string;
  object: 'app' | 'app_install';
  suspended_at: string | null;
  /** The installs this uninstalled (`suspended`); those already uninstalled are left as they were. */
  uninstalled: string[];
}

/**
 * Suspends an app (the id of one: every active install uninstalled, `suspended`, and no install, authorization
 * or token for it since) or one install (the id of one); undefined when the id is neither. Again: nothing more.
 */
export async function suspend(runtime: Runtime, id: string): Promise<Suspension | undefined> {
  if (!isUuid(id)) return undefined;
  const result = await inTransaction(runtime, async (tx): Promise<Suspension | undefined> => {
    const context = (accountId: string) => ({ ...tx, accountId, actor: SYSTEM_ACTOR });
    const app = await repository.findAppForOperator(tx.db, id);
    if (app) {
      const now = tx.clock.now().toISOString();
      const uninstalled: string[] = [];
      for (const install of await repository.findActiveInstallsOfApp(tx.db, app.id)) {
        await uninstallInTransaction(context(install.account_id), install, app, 'suspended');
        uninstalled.push(install.id);
      }
      const suspendedAt = app.suspended_at ?? now;
      if (app.suspended_at === null) await repository.updateApp(tx.db, app.id, { suspended_at: suspendedAt });
      return { id: app.id, object: 'app', suspended_at: suspendedAt, uninstalled };
    }
    const install = await repository.findInstallById(tx.db, id, true);
    if (!install) return undefined;
    const owner = await tx.db.selectFrom('apps').selectAll().where('id', '=', install.app_id).executeTakeFirstOrThrow();
    const before = install.status;
    await uninstallInTransaction(context(install.account_id), install, owner, 'suspended');
    return {
      id: install.id,
      object: 'app_install',
      suspended_at: null,
      uninstalled: before === 'active' ? [install.id] : [],
    };
  });
  forgetInstallTokens();
  return result;
}

/**
 * The end of an app's suspension: `lifted` whether it was suspended. Its installs stay uninstalled (final, §25),
 * so each business installs it anew.
 */
export type Unsuspension =
  | { id: string; object: 'app'; suspended_at: null; lifted: boolean }
  /** The id is an install's: its suspension uninstalled it, which nothing undoes. */
  | { id: string; object: 'app_install' };

/**
 * Lets a suspended app be installed, authorized and given tokens again (the id of an app); undefined when the id is
 * neither an app's nor an install's. Again: nothing more.
 */
export async function unsuspend(runtime: Runtime, id: string): Promise<Unsuspension | undefined> {
  if (!isUuid(id)) return undefined;
  return inTransaction(runtime, async (tx): Promise<Unsuspension | undefined> => {
    const app = await repository.findAppForOperator(tx.db, id);
    if (app) {
      if (app.suspended_at !== null) await repository.updateApp(tx.db, app.id, { suspended_at: null });
      return { id: app.id, object: 'app', suspended_at: null, lifted: app.suspended_at !== null };
    }
    return (await repository.findInstallById(tx.db, id)) ? { id, object: 'app_install' } : undefined;
  });
}
