// The token endpoint's grants, revocation and introspection (docs/api-contract.md §25; RFC 6749, 7009, 7662,
// 9700). A code is redeemed once, with its PKCE verifier; the install is made (or its consent renewed) then.
// Refresh tokens rotate at every use, one live per install (its family); the superseded one presented again
// within the grace answers a new pair and revokes the pair it replaced, later it ends the family and the install.
// Every step that reads and changes a code or a token holds its row (one transaction), so concurrent uses of
// one are serialised.
import { createHash } from 'node:crypto';
import { newId } from '../../core/deps.js';
import { fromJson } from '../../db/index.js';
import type { AppInstallRow, AppRow, OauthGrantRow, OauthTokenRow } from '../../db/types.js';
import { type Context, inTransaction, type Runtime } from '../../kernel/context.js';
import { SCOPES } from '../../kernel/scopes.js';
import { recordEvent } from '../events/index.js';
import { syncInstallWebhook } from './app-webhooks.js';
import * as repository from './apps.repository.js';
import { OAuthError } from './oauth-clients.js';
import { presentInstall } from './present-install.js';
import { hashSecret, looksLike, newSecret } from './secrets.js';
import { APP_LIMITS, type AppSettings } from './settings.js';
import { forgetInstallTokens } from './token-cache.js';
import { type UninstallReason, uninstallInTransaction } from './uninstall.js';

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
  account_id: string;
  install_id: string;
}

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);

/** Scopes in §3's order, space-separated (RFC 6749 §3.3). */
function scopeText(scopes: readonly string[]): string {
  return SCOPES.filter((scope) => scopes.includes(scope)).join(' ');
}

/** A new access and refresh token of an install's family; `parentId` the refresh token they follow. */
async function issuePair(
  ctx: Runtime,
  settings: AppSettings,
  install: AppInstallRow,
  scopes: { refresh: readonly string[]; access: readonly string[] },
  parentId: string | null,
): Promise<TokenAnswer> {
  const now = ctx.clock.now();
  const refresh = newSecret('refreshToken', settings.pepper);
  const access = newSecret('accessToken', settings.pepper);
  const refreshId = newId();
  const common = {
    account_id: install.account_id,
    app_id: install.app_id,
    install_id: install.id,
    family_id: install.family_id,
  };
  const base = { superseded_at: null, revoked_at: null, created_at: now.toISOString() };
  await repository.insertToken(ctx.db, {
    id: refreshId,
    token_hash: refresh.hash,
    kind: 'refresh',
    ...common,
    parent_id: parentId,
    scopes: JSON.stringify(scopes.refresh),
    expires_at: new Date(now.getTime() + APP_LIMITS.refreshTokenDays * 86_400_000).toISOString(),
    ...base,
  });
  await repository.insertToken(ctx.db, {
    id: newId(),
    token_hash: access.hash,
    kind: 'access',
    ...common,
    parent_id: refreshId,
    scopes: JSON.stringify(scopes.access),
    expires_at: new Date(now.getTime() + settings.accessTokenTtlSeconds * 1000).toISOString(),
    ...base,
  });
  return {
    access_token: access.secret,
    token_type: 'Bearer',
    expires_in: settings.accessTokenTtlSeconds,
    refresh_token: refresh.secret,
    scope: scopeText(scopes.access),
    account_id: install.account_id,
    install_id: install.id,
  };
}

function installContext(ctx: Runtime, install: AppInstallRow, actorType: 'app' | 'system' = 'app'): Context {
  return {
    ...ctx,
    accountId: install.account_id,
    actor: actorType === 'app' ? { type: 'app', id: install.id, app_id: install.app_id } : { type: 'system', id: null },
  };
}

async function endInstall(ctx: Runtime, installId: string, reason: UninstallReason): Promise<void> {
  const install = await repository.findInstallById(ctx.db, installId, true);
  if (!install || install.status !== 'active') return;
  const app = await ctx.db.selectFrom('apps').selectAll().where('id', '=', install.app_id).executeTakeFirstOrThrow();
  await uninstallInTransaction(installContext(ctx, install, 'system'), install, app, reason);
}

function pkceMatches(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  return createHash('sha256').update(verifier).digest('base64url') === challenge;
}

/**
 * Errors that end something (a replayed code, a reused refresh token) must commit what they end: the
 * transaction answers the error as a value, thrown after the commit.
 */
async function committed<T>(ctx: Runtime, work: (tx: Runtime) => Promise<T | OAuthError>): Promise<T> {
  const outcome = await inTransaction(ctx, work);
  if (outcome instanceof OAuthError) throw outcome;
  return outcome;
}

export async function redeemCode(
  runtime: Runtime,
  settings: AppSettings,
  app: AppRow,
  form: Record<string, string | undefined>,
): Promise<TokenAnswer> {
  const code = form.code;
  if (code === undefined || code === '') throw new OAuthError('invalid_request', 'code is required.');
  if (form.code_verifier === undefined || form.code_verifier === '')
    throw new OAuthError('invalid_request', 'code_verifier is required (PKCE).');
  if (!looksLike('code', code)) throw invalidGrant('The code is not valid.');
  const verifier = form.code_verifier;
  const answer = await committed(runtime, async (tx) => {
    const grant = await repository.findGrantByCode(tx.db, hashSecret(code, settings.pepper), true);
    const now = tx.clock.now();
    if (!grant || grant.app_id !== app.id) return invalidGrant('The code is not valid.');
    if (grant.redeemed_at !== null) {
      // A replayed code: what its first use issued is revoked, and its install ends (§32).
      if (grant.install_id !== null) await endInstall(tx, grant.install_id, 'token_reuse');
      return invalidGrant('The code was already used; what it issued is revoked.');
    }
    if (grant.code_expires_at === null || new Date(grant.code_expires_at).getTime() <= now.getTime())
      return invalidGrant('The code has expired.');
    if (form.redirect_uri !== undefined && form.redirect_uri !== grant.redirect_uri)
      return invalidGrant('redirect_uri differs from the authorization request’s.');
    if (!pkceMatches(verifier, grant.code_challenge))
      return invalidGrant('The code_verifier does not match the code_challenge.');
    const install = await installFor(tx, grant);
    if (install instanceof OAuthError) return install;
    await repository.updateGrant(tx.db, grant.id, { redeemed_at: now.toISOString(), install_id: install.id });
    const scopes = fromJson<string[]>(grant.scopes);
    return issuePair(tx, settings, install, { refresh: scopes, access: scopes }, null);
  });
  forgetInstallTokens();
  return answer;
}

/** The install a redeemed grant makes, or renews (a new consent replaces its scopes and its family). */
async function installFor(tx: Runtime, grant: OauthGrantRow): Promise<AppInstallRow | OAuthError> {
  const now = tx.clock.now().toISOString();
  const app = await tx.db.selectFrom('apps').selectAll().where('id', '=', grant.app_id).executeTakeFirstOrThrow();
  const publisher = await repository.findPublisherName(tx.db, app.account_id);
  const existing = await repository.findActiveInstall(tx.db, grant.account_id, grant.app_id, true);
  if (existing) {
    await repository.revokeInstallTokens(tx.db, existing.id, now);
    const changes = { scopes: grant.scopes, family_id: newId(), updated_at: now };
    await repository.updateInstall(tx.db, existing.id, changes);
    const after = { ...existing, ...changes };
    await syncInstallWebhook(tx.db, now, app, after);
    await recordEvent(installContext(tx, after), 'app.reauthorized', presentInstall(after, app, publisher), {
      previous_attributes: { scopes: fromJson(existing.scopes) },
    });
    return after;
  }
  if ((await repository.countActiveInstalls(tx.db, grant.account_id)) >= APP_LIMITS.activeInstallsPerAccount)
    return new OAuthError(
      'invalid_grant',
      `The account has ${APP_LIMITS.activeInstallsPerAccount} active installs, the most it may.`,
    );
  const link = await repository.findInstallLink(tx.db, grant.link_id);
  const install: AppInstallRow = {
    id: newId(),
    account_id: grant.account_id,
    app_id: grant.app_id,
    scopes: grant.scopes,
    status: 'active',
    family_id: newId(),
    rate_limit_per_minute: null,
    rate_limit_per_day: null,
    rate_limit_burst: null,
    installed_by_type: link?.created_by_type ?? 'api_key',
    installed_by_id: link?.created_by_id ?? null,
    installed_at: now,
    last_used_at: null,
    uninstalled_at: null,
    uninstalled_reason: null,
    created_at: now,
    updated_at: now,
  };
  await repository.insertInstall(tx.db, install);
  await syncInstallWebhook(tx.db, now, app, install);
  await recordEvent(installContext(tx, install), 'app.installed', presentInstall(install, app, publisher));
  return install;
}

export async function refresh(
  runtime: Runtime,
  settings: AppSettings,
  app: AppRow,
  form: Record<string, string | undefined>,
): Promise<TokenAnswer> {
  const presented = form.refresh_token;
  if (presented === undefined || presented === '')
    throw new OAuthError('invalid_request', 'refresh_token is required.');
  if (!looksLike('refreshToken', presented)) throw invalidGrant('The refresh token is not valid.');
  const asked = form.scope === undefined || form.scope.trim() === '' ? undefined : form.scope.trim().split(/ +/);
  const answer = await committed(runtime, async (tx) => {
    const token = await repository.findTokenByHash(tx.db, hashSecret(presented, settings.pepper), true);
    const now = tx.clock.now();
    if (!token || token.kind !== 'refresh' || token.app_id !== app.id)
      return invalidGrant('The refresh token is not valid.');
    const install = await repository.findInstallById(tx.db, token.install_id, true);
    if (!install || install.status !== 'active' || install.family_id !== token.family_id)
      return invalidGrant('The refresh token is no longer valid.');
    if (token.revoked_at !== null) {
      await endInstall(tx, install.id, 'token_reuse');
      return invalidGrant('The refresh token was revoked; its family is revoked and the app uninstalled.');
    }
    if (new Date(token.expires_at).getTime() <= now.getTime()) {
      await endInstall(tx, install.id, 'expired');
      return invalidGrant('The refresh token has expired; the app was uninstalled.');
    }
    const scopes = fromJson<string[]>(token.scopes);
    if (asked?.some((scope) => !scopes.includes(scope)))
      return new OAuthError('invalid_scope', 'scope may only narrow what the refresh token holds.');
    const access = asked ?? scopes;
    if (token.superseded_at !== null) {
      const supersededMs = new Date(token.superseded_at).getTime();
      if (now.getTime() - supersededMs > settings.refreshReuseGraceSeconds * 1000) {
        await endInstall(tx, install.id, 'token_reuse');
        return invalidGrant('The refresh token was already used; its family is revoked and the app uninstalled.');
      }
      // Within the grace (a lost answer retried): the pair it was replaced by is revoked, never received.
      await revokeDescendants(tx, token, now.toISOString());
      return issuePair(tx, settings, install, { refresh: scopes, access }, token.id);
    }
    await repository.supersedeToken(tx.db, token.id, now.toISOString());
    return issuePair(tx, settings, install, { refresh: scopes, access }, token.id);
  });
  forgetInstallTokens();
  return answer;
}

/** The refresh tokens that replaced `token` (and the access tokens issued with them). */
async function revokeDescendants(tx: Runtime, token: OauthTokenRow, now: string): Promise<void> {
  const ids: string[] = [];
  for (const child of await repository.findChildren(tx.db, token.id)) {
    if (child.kind !== 'refresh' || child.revoked_at !== null) continue;
    ids.push(child.id);
    for (const access of await repository.findChildren(tx.db, child.id)) ids.push(access.id);
  }
  await repository.revokeTokens(tx.db, ids, now);
}

/** RFC 7009: an access token ends alone; a refresh token ends its family, so the install. Others: nothing. */
export async function revoke(
  runtime: Runtime,
  settings: AppSettings,
  app: AppRow,
  token: string | undefined,
): Promise<void> {
  if (token === undefined || !(looksLike('accessToken', token) || looksLike('refreshToken', token))) return;
  await inTransaction(runtime, async (tx) => {
    const row = await repository.findTokenByHash(tx.db, hashSecret(token, settings.pepper), true);
    if (!row || row.app_id !== app.id || row.revoked_at !== null) return;
    if (row.kind === 'access') await repository.revokeTokens(tx.db, [row.id], tx.clock.now().toISOString());
    else await endInstall(tx, row.install_id, 'app');
  });
  forgetInstallTokens();
}

export type Introspection =
  | { active: false }
  | {
      active: true;
      scope: string;
      client_id: string;
      account_id: string;
      install_id: string;
      token_type: string;
      exp: number;
      iat: number;
    };

/** RFC 7662: the app's own live tokens; `{active: false}` for anything else. */
export async function introspect(
  runtime: Runtime,
  settings: AppSettings,
  app: AppRow,
  token: string | undefined,
): Promise<Introspection> {
  if (token === undefined || !(looksLike('accessToken', token) || looksLike('refreshToken', token)))
    return { active: false };
  const row = await repository.findTokenByHash(runtime.db, hashSecret(token, settings.pepper));
  const now = runtime.clock.now().getTime();
  if (!row || row.app_id !== app.id || row.revoked_at !== null || row.superseded_at !== null) return { active: false };
  if (new Date(row.expires_at).getTime() <= now) return { active: false };
  const install = await repository.findInstallById(runtime.db, row.install_id);
  if (!install || install.status !== 'active') return { active: false };
  const appScopes = fromJson<string[]>(app.scopes);
  return {
    active: true,
    scope: scopeText(fromJson<string[]>(row.scopes).filter((scope) => appScopes.includes(scope))),
    client_id: app.id,
    account_id: row.account_id,
    install_id: row.install_id,
    token_type: row.kind === 'access' ? 'Bearer' : 'refresh_token',
    exp: Math.floor(new Date(row.expires_at).getTime() / 1000),
    iat: Math.floor(new Date(row.created_at).getTime() / 1000),
  };
}
