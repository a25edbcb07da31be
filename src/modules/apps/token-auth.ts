// Authentication of an app's access token (docs/api-contract.md §25): `bmsat_…`, looked up by hash, acting as a
// key holding the install's scopes that the app still asks for, with the install's own rate-limit bucket
// (its id is the caller's keyId). Expired, revoked, uninstalled or unknown: undefined, answered as §2's 401.
import type { Clock } from '../../core/deps.js';
import { type Executor, fromJson } from '../../db/index.js';
import type { Authenticate, AuthContext } from '../../kernel/auth-context.js';
import { appSubscriptions } from '../events/index.js';
import * as repository from './apps.repository.js';
import { hashSecret, looksLike } from './secrets.js';
import { cacheGeneration, cachedToken, keepToken, type KnownToken } from './token-cache.js';

const LAST_USED_RESOLUTION_MS = 60_000;

async function loadToken(db: Executor, tokenHash: string): Promise<KnownToken | undefined> {
  const generation = cacheGeneration();
  const token = await repository.findTokenByHash(db, tokenHash);
  if (!token || token.kind !== 'access' || token.revoked_at !== null) return undefined;
  const install = await repository.findInstallById(db, token.install_id);
  if (!install || install.status !== 'active') return undefined;
  const app = await repository.findAppById(db, token.app_id);
  if (!app) return undefined;
  const appScopes = new Set(fromJson<string[]>(app.scopes));
  // A scope the app no longer asks for leaves every install at once.
  const scopes = new Set(fromJson<string[]>(token.scopes).filter((scope) => appScopes.has(scope)));
  const context: AuthContext = {
    accountId: token.account_id,
    keyId: install.id,
    appId: app.id,
    scopes,
    // What its webhook hears of is what it reads of the events (docs/api-contract.md §25).
    eventSubscriptions: appSubscriptions(fromJson<string[]>(app.webhook_events), scopes, install.id),
    rateLimits: {
      perMinute: install.rate_limit_per_minute ?? undefined,
      perDay: install.rate_limit_per_day ?? undefined,
      burst: install.rate_limit_burst ?? undefined,
    },
    ancestors: [],
  };
  const known: KnownToken = {
    tokenId: token.id,
    installId: install.id,
    context,
    expiresMs: new Date(token.expires_at).getTime(),
    lastUsedMs: install.last_used_at === null ? 0 : new Date(install.last_used_at).getTime(),
  };
  keepToken(tokenHash, known, generation);
  return known;
}

function admit(db: Executor, clock: Clock, known: KnownToken | undefined) {
  if (!known) return undefined;
  const now = clock.now();
  const nowMs = now.getTime();
  if (known.expiresMs <= nowMs) return undefined;
  if (nowMs - known.lastUsedMs < LAST_USED_RESOLUTION_MS) return known.context;
  known.lastUsedMs = nowMs;
  // Bookkeeping only, as a key's last_used_at: a failed write does not fail the request.
  return repository.updateInstall(db, known.installId, { last_used_at: now.toISOString() }).then(
    () => known.context,
    () => known.context,
  );
}

/** Whether a presented bearer credential is an app's access token (else it is an API key). */
export function isAccessToken(credential: string): boolean {
  return credential.startsWith('bmsat_');
}

export function accessTokenAuthenticator(clock: Clock, pepper: string | undefined): Authenticate {
  return (db, credential) => {
    if (!looksLike('accessToken', credential)) return undefined;
    const tokenHash = hashSecret(credential, pepper);
    const cached = cachedToken(tokenHash);
    if (cached) return admit(db, clock, cached);
    return loadToken(db, tokenHash).then((known) => admit(db, clock, known));
  };
}
