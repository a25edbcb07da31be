// Install links and installs (docs/api-contract.md §25): a key holding `apps:install` hands its authority to a
// browser once; the business reads, limits and ends the installs of apps in its account.
import { AppError, fieldError } from '../../core/errors.js';
import { isUuid, newId } from '../../core/deps.js';
import { fromJson, type Page, pageRequest, toPage } from '../../db/index.js';
import type { AppInstallRow, AppRow } from '../../db/types.js';
import { type AuthContext, DEFAULT_RATE_LIMITS, insufficientScope } from '../../kernel/auth-context.js';
import { type Context, inTransaction } from '../../kernel/context.js';
import { requireRow } from '../shared/index.js';
import * as repository from './apps.repository.js';
import type {
  AppInstall,
  CreateInstallLinkInput,
  InstallLink,
  ListInstallsInput,
  UpdateInstallInput,
} from './apps.schemas.js';
import { inScopeOrder } from './apps.service.js';
import { presentInstall } from './present-install.js';
import { newSecret } from './secrets.js';
import type { AppSettings } from './settings.js';
import { forgetInstallTokens } from './token-cache.js';
import { uninstallInTransaction } from './uninstall.js';

/** An app this account may install: its own, or a public one; anything else is 422 on `app_id`. */
async function installableApp(ctx: Context, appId: string): Promise<AppRow> {
  const app = isUuid(appId) ? await repository.findAppById(ctx.db, appId) : undefined;
  if (!app || (app.visibility !== 'public' && app.account_id !== ctx.accountId))
    throw fieldError('app_id', `no app with id '${appId}' may be installed in this account`);
  return app;
}

export async function createInstallLink(
  ctx: Context,
  settings: AppSettings,
  caller: AuthContext,
  body: CreateInstallLinkInput,
): Promise<InstallLink> {
  const app = await installableApp(ctx, body.app_id);
  const appScopes = fromJson<string[]>(app.scopes);
  const scopes = inScopeOrder(body.scopes ?? appScopes);
  // Within the key's powers first (403, §20), then the app's (422).
  for (const scope of body.scopes ?? appScopes) if (!caller.scopes.has(scope)) throw insufficientScope(scope);
  (body.scopes ?? []).forEach((scope, index) => {
    if (!appScopes.includes(scope)) throw fieldError(`scopes[${index}]`, `the app does not ask for '${scope}'`);
  });
  const token = newSecret('installLink', settings.pepper);
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + (body.expires_in_minutes ?? 15) * 60_000).toISOString();
  const id = newId();
  await repository.insertInstallLink(ctx.db, {
    id,
    account_id: ctx.accountId,
    app_id: app.id,
    scopes: JSON.stringify(scopes),
    token_hash: token.hash,
    created_by_type: 'api_key',
    created_by_id: caller.appId === undefined ? caller.keyId : null,
    expires_at: expiresAt,
    opened_at: null,
    consent_hash: null,
    consent_expires_at: null,
    created_at: now.toISOString(),
  });
  return {
    id,
    object: 'app_install_link',
    app_id: app.id,
    scopes,
    url: `${settings.issuer}/oauth/install/${token.secret}`,
    expires_at: expiresAt,
  };
}

async function present(ctx: Context, row: AppInstallRow): Promise<AppInstall> {
  // An app deleted since still names itself on its installs.
  const app = await ctx.db.selectFrom('apps').selectAll().where('id', '=', row.app_id).executeTakeFirstOrThrow();
  return presentInstall(row, app, await repository.findPublisherName(ctx.db, app.account_id));
}

async function installRow(ctx: Context, id: string, lock = false): Promise<AppInstallRow> {
  return requireRow('app install', id, (found) => repository.findInstall(ctx.db, ctx.accountId, found, lock));
}

export async function listInstalls(ctx: Context, query: ListInstallsInput): Promise<Page<AppInstall>> {
  if (query.app_id !== undefined && !isUuid(query.app_id))
    throw fieldError('app_id', 'must be the id of an app (a UUID)');
  const page = pageRequest({ ...query, sort: '-created_at' }, repository.INSTALL_SORTS);
  const { rows, resumeAfter } = await repository.listInstalls(ctx.db, ctx.accountId, query, page);
  const listed = toPage(rows, page, resumeAfter);
  return { ...listed, items: await Promise.all(listed.items.map((row) => present(ctx, row))), cursorAfter: undefined };
}

export async function getInstall(ctx: Context, id: string): Promise<AppInstall> {
  return present(ctx, await installRow(ctx, id));
}

/** The install of the calling token (a key has none: 404). */
export function currentInstallId(caller: AuthContext): string {
  if (caller.appId === undefined)
    throw new AppError('NOT_FOUND', 'Only an app’s access token has a current install; this is an API key.');
  return caller.keyId;
}

export async function updateInstall(ctx: Context, id: string, body: UpdateInstallInput): Promise<AppInstall> {
  const limits = body.rate_limits;
  const row = await inTransaction(ctx, async (tx) => {
    const current = await installRow(tx, id, true);
    // The business only lowers: at most §4's default, or what the operator set above it (bms apps set-limits).
    const ceilings = {
      per_minute: Math.max(DEFAULT_RATE_LIMITS.perMinute, current.rate_limit_per_minute ?? 0),
      per_day: Math.max(DEFAULT_RATE_LIMITS.perDay, current.rate_limit_per_day ?? 0),
      burst: Math.max(DEFAULT_RATE_LIMITS.burst, current.rate_limit_burst ?? 0),
    };
    for (const [name, value] of Object.entries(limits)) {
      const ceiling = ceilings[name as keyof typeof ceilings];
      if (value !== null && value !== undefined && value > ceiling)
        throw fieldError(
          `rate_limits.${name}`,
          `may only lower the install's limit (at most ${ceiling}); the operator raises it with bms apps set-limits`,
        );
    }
    const changes: Partial<AppInstallRow> = { updated_at: tx.clock.now().toISOString() };
    if (limits.per_minute !== undefined) changes.rate_limit_per_minute = limits.per_minute;
    if (limits.per_day !== undefined) changes.rate_limit_per_day = limits.per_day;
    if (limits.burst !== undefined) changes.rate_limit_burst = limits.burst;
    await repository.updateInstall(tx.db, id, changes);
    return { ...current, ...changes };
  });
  forgetInstallTokens();
  return present(ctx, row);
}

/** Uninstalls (`business` by a key, `app` by its own token); again: unchanged, no event. */
export async function deleteInstall(ctx: Context, id: string, reason: 'business' | 'app'): Promise<AppInstall> {
  const row = await inTransaction(ctx, async (tx) => {
    const install = await installRow(tx, id, true);
    const app = await tx.db.selectFrom('apps').selectAll().where('id', '=', install.app_id).executeTakeFirstOrThrow();
    return uninstallInTransaction(tx, install, app, reason);
  });
  return present(ctx, row);
}
