// Authentication of a presented key: looked up by hash (the current secret, or the one a roll replaced while
// its overlap lasts), refused when expired, revoked or used from outside its allowed networks.
import type { Clock } from '../../core/deps.js';
import { type Executor, fromJson } from '../../db/index.js';
import type { ApiKeyRow } from '../../db/types.js';
import type { Authenticate, AuthContext } from '../../kernel/auth-context.js';
import { findApiKeyByHash, findMintingKeys, touchApiKey } from './api-keys.repository.js';
import { addressAllowed, parseNetworks, type Network } from './networks.js';
import { hashApiKey, KEY_PATTERN } from './secrets.js';

/** last_used_at is written at most this often per key, so reads do not become writes. */
const LAST_USED_RESOLUTION_MS = 60_000;
const CACHE_TTL_MS = 2000;

/**
 * Keys changed through the API in this process (revoked, rolled, edited), with when: a cached entry filled
 * before its key's change is read again, so such a change holds from the very next request here. Another
 * process (`bms keys revoke`, another instance) is reached by the cache's TTL instead, within 2 s.
 */
const changedKeys = new Map<string, number>();

export function forgetCachedKey(keyId: string): void {
  const now = performance.now();
  for (const [id, at] of changedKeys) if (now - at > CACHE_TTL_MS) changedKeys.delete(id);
  changedKeys.set(keyId, now);
}

interface KnownKey {
  row: ApiKeyRow;
  context: AuthContext;
  /** The keys that minted this one: a change to one of them (its limits) is read again like a change to it. */
  ancestorIds: string[];
  networks: Network[];
  /** row.last_used_at as milliseconds, read once rather than parsed on every request. */
  lastUsedMs: number;
  /** row.expires_at and row.previous_key_expires_at as milliseconds (Infinity: never), parsed once too. */
  expiresMs: number;
  previousExpiresMs: number;
}

const millisecondsOf = (timestamp: string | null): number =>
  timestamp === null ? Number.POSITIVE_INFINITY : new Date(timestamp).getTime();

/**
 * Keys by hash, kept briefly so that a request does not cost a query. Only found keys are kept, so a new key
 * works at once and unknown keys cannot fill the cache; expiry and overlaps are checked on every request.
 * A key found here is answered at once, without a promise.
 */
class ApiKeyCache {
  private readonly entries = new Map<string, { key: KnownKey; filled: number }>();

  constructor(private readonly maxEntries = 10_000) {}

  find(db: Executor, keyHash: string): KnownKey | undefined | Promise<KnownKey | undefined> {
    const now = performance.now();
    const hit = this.entries.get(keyHash);
    if (hit && now - hit.filled < CACHE_TTL_MS && !changedSince(hit.key, hit.filled)) return hit.key;
    this.entries.delete(keyHash);
    return this.load(db, keyHash, now);
  }

  private async load(db: Executor, keyHash: string, now: number): Promise<KnownKey | undefined> {
    const row = await findApiKeyByHash(db, keyHash);
    if (!row) return undefined;
    const ancestors = await findMintingKeys(db, row);
    const key = {
      row,
      context: toAuthContext(row, ancestors),
      ancestorIds: ancestors.map((ancestor) => ancestor.id),
      networks: parseNetworks(fromJson<string[]>(row.allowed_cidrs)),
      lastUsedMs: row.last_used_at === null ? 0 : new Date(row.last_used_at).getTime(),
      expiresMs: millisecondsOf(row.expires_at),
      previousExpiresMs: millisecondsOf(row.previous_key_expires_at),
    };
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(keyHash, { key, filled: now });
    return key;
  }
}

function changedSince(key: KnownKey, filled: number): boolean {
  if ((changedKeys.get(key.row.id) ?? -1) >= filled) return true;
  for (const id of key.ancestorIds) if ((changedKeys.get(id) ?? -1) >= filled) return true;
  return false;
}

function rateLimitsOf(row: ApiKeyRow): AuthContext['rateLimits'] {
  return {
    perMinute: row.rate_limit_per_minute ?? undefined,
    perDay: row.rate_limit_per_day ?? undefined,
    burst: row.rate_limit_burst ?? undefined,
  };
}

/** What a request runs with; `ancestors` are the keys that minted this one, parent first. */
export function toAuthContext(row: ApiKeyRow, ancestors: readonly ApiKeyRow[] = []): AuthContext {
  return {
    accountId: row.account_id,
    keyId: row.id,
    scopes: new Set(fromJson<string[]>(row.scopes)),
    rateLimits: rateLimitsOf(row),
    ancestors: ancestors.map((ancestor) => ({ keyId: ancestor.id, rateLimits: rateLimitsOf(ancestor) })),
  };
}

type Authenticated = AuthContext | undefined | Promise<AuthContext | undefined>;

/**
 * The account and scopes behind a presented key, or undefined when the key is malformed, unknown, revoked,
 * expired, an old secret past its overlap, or used from outside its networks (the caller answers all the same
 * way, so none can be told apart). A cached key is answered at once.
 */
function authenticateApiKey(
  db: Executor,
  clock: Clock,
  pepper: string | undefined,
  key: string,
  ip: string,
  cache: ApiKeyCache,
): Authenticated {
  if (!KEY_PATTERN.test(key)) return undefined;
  const keyHash = hashApiKey(key, pepper);
  const found = cache.find(db, keyHash);
  return found instanceof Promise
    ? found.then((known) => admitKey(db, clock, known, keyHash, ip))
    : admitKey(db, clock, found, keyHash, ip);
}

function admitKey(db: Executor, clock: Clock, found: KnownKey | undefined, keyHash: string, ip: string): Authenticated {
  if (!found || found.row.revoked_at !== null) return undefined;
  const { row } = found;
  const now = clock.now();
  const nowMs = now.getTime();
  if (found.expiresMs <= nowMs) return undefined;
  if (row.key_hash !== keyHash && (row.previous_key_hash !== keyHash || found.previousExpiresMs <= nowMs))
    return undefined;
  if (!addressAllowed(found.networks, ip)) return undefined;
  if (nowMs - found.lastUsedMs < LAST_USED_RESOLUTION_MS) return found.context;
  row.last_used_at = now.toISOString();
  found.lastUsedMs = nowMs;
  // Bookkeeping only: a database that cannot take this write (full, read-only, locked) must not
  // fail a request that only reads. The next request tries again.
  return touchApiKey(db, row.id, row.last_used_at).then(
    () => found.context,
    () => {
      row.last_used_at = null;
      found.lastUsedMs = 0;
      return found.context;
    },
  );
}

/** Authentication as http/auth.ts runs it: keys looked up through one cache per app. */
export function apiKeyAuthenticator(clock: Clock, pepper: string | undefined): Authenticate {
  const cache = new ApiKeyCache();
  return (db, key, ip) => authenticateApiKey(db, clock, pepper, key, ip, cache);
}
