// API keys: `bms_` + 40 base62 characters (~238 bits), shown once; only a SHA-256 (or HMAC-SHA256 with
// a pepper) is stored, with a short prefix for display. Authentication looks a key up by that hash.
import { createHmac, hash, randomBytes } from 'node:crypto';
import type { Clock } from '../../core/deps.js';
import { newId, isUuid } from '../../core/deps.js';
import type { Executor } from '../../db/database.js';
import type { ApiKeyRow } from '../../db/types.js';
import {
  findApiKey,
  findApiKeyByHash,
  insertApiKey,
  listApiKeys,
  markApiKeyRevoked,
  touchApiKey,
} from './api-keys.repository.js';
import type { Authenticate, AuthContext, RateLimitOverrides } from '../../kernel/auth-context.js';
import type { Scope } from '../../kernel/scopes.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 40;
const KEY_PATTERN = /^bms_[0-9A-Za-z]{32,128}$/;
const PREFIX_LENGTH = 12;
/** last_used_at is written at most this often per key, so reads do not become writes. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface CreatedApiKey {
  id: string;
  key: string;
  prefix: string;
  name: string;
  scopes: Scope[];
  expires_at: string | null;
}

export interface ApiKeySummary {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  rate_limits: { per_minute: number | null; per_day: number | null; burst: number | null };
  created_at: string;
}

/** Uniformly random base62 characters (rejection sampling keeps every character equally likely). */
function randomBase62(length: number): string {
  let output = '';
  while (output.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && output.length < length) output += ALPHABET[byte % 62];
    }
  }
  return output;
}

export function hashApiKey(key: string, pepper: string | undefined): string {
  return pepper ? createHmac('sha256', pepper).update(key).digest('hex') : hash('sha256', key, 'hex');
}

export async function createApiKey(
  db: Executor,
  clock: Clock,
  pepper: string | undefined,
  input: {
    accountId: string;
    name: string;
    scopes: Scope[];
    expiresAt?: Date | undefined;
    rateLimits?: RateLimitOverrides;
  },
): Promise<CreatedApiKey> {
  const now = clock.now();
  if (input.expiresAt && input.expiresAt.getTime() <= now.getTime())
    throw new Error('The expiry must be in the future.');
  const key = `bms_${randomBase62(SECRET_LENGTH)}`;
  const row = {
    id: newId(),
    account_id: input.accountId,
    name: input.name,
    prefix: key.slice(0, PREFIX_LENGTH),
    key_hash: hashApiKey(key, pepper),
    scopes: JSON.stringify(input.scopes),
    expires_at: input.expiresAt ? input.expiresAt.toISOString() : null,
    revoked_at: null,
    last_used_at: null,
    rate_limit_per_minute: input.rateLimits?.perMinute ?? null,
    rate_limit_per_day: input.rateLimits?.perDay ?? null,
    rate_limit_burst: input.rateLimits?.burst ?? null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  await insertApiKey(db, row);
  return { id: row.id, key, prefix: row.prefix, name: row.name, scopes: input.scopes, expires_at: row.expires_at };
}

function toSummary(row: ApiKeyRow): ApiKeySummary {
  return {
    id: row.id,
    account_id: row.account_id,
    name: row.name,
    prefix: row.prefix,
    scopes: JSON.parse(row.scopes) as Scope[],
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    last_used_at: row.last_used_at,
    rate_limits: {
      per_minute: row.rate_limit_per_minute,
      per_day: row.rate_limit_per_day,
      burst: row.rate_limit_burst,
    },
    created_at: row.created_at,
  };
}

export async function listAccountApiKeys(db: Executor, accountId: string): Promise<ApiKeySummary[]> {
  return (await listApiKeys(db, accountId)).map(toSummary);
}

/** Revokes a key; returns its summary, or undefined when there is no such key. Revoking twice is harmless. */
export async function revokeApiKey(db: Executor, clock: Clock, id: string): Promise<ApiKeySummary | undefined> {
  if (!isUuid(id)) return undefined;
  await markApiKeyRevoked(db, id, clock.now().toISOString());
  const row = await findApiKey(db, id);
  return row && toSummary(row);
}

/**
 * Keys by hash, kept briefly so that a request does not cost a query. A key revoked (by `bms keys revoke`,
 * from another process) stops working on a running server within the TTL; expiry is checked on every
 * request. Only found keys are kept, so a new key works at once and unknown keys cannot fill the cache.
 */
class ApiKeyCache {
  private readonly entries = new Map<string, { key: KnownKey; until: number }>();

  constructor(
    readonly ttlMs = 2000,
    private readonly maxEntries = 10_000,
  ) {}

  async find(db: Executor, keyHash: string): Promise<KnownKey | undefined> {
    const now = performance.now();
    const hit = this.entries.get(keyHash);
    if (hit && hit.until > now) return hit.key;
    this.entries.delete(keyHash);
    const row = await findApiKeyByHash(db, keyHash);
    if (!row) return undefined;
    const key = { row, context: toAuthContext(row) };
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(keyHash, { key, until: now + this.ttlMs });
    return key;
  }
}

interface KnownKey {
  row: ApiKeyRow;
  context: AuthContext;
}

function toAuthContext(row: ApiKeyRow): AuthContext {
  return {
    accountId: row.account_id,
    keyId: row.id,
    scopes: new Set(JSON.parse(row.scopes) as string[]),
    rateLimits: {
      perMinute: row.rate_limit_per_minute ?? undefined,
      perDay: row.rate_limit_per_day ?? undefined,
      burst: row.rate_limit_burst ?? undefined,
    },
  };
}

/**
 * The account and scopes behind a presented key, or undefined when the key is malformed, unknown,
 * revoked or expired (the caller answers all four the same way, so none can be told apart).
 */
async function authenticateApiKey(
  db: Executor,
  clock: Clock,
  pepper: string | undefined,
  key: string,
  cache: ApiKeyCache,
): Promise<AuthContext | undefined> {
  if (!KEY_PATTERN.test(key)) return undefined;
  const found = await cache.find(db, hashApiKey(key, pepper));
  if (!found || found.row.revoked_at !== null) return undefined;
  const { row } = found;
  const now = clock.now();
  if (row.expires_at !== null && new Date(row.expires_at).getTime() <= now.getTime()) return undefined;
  const lastUsed = row.last_used_at === null ? 0 : new Date(row.last_used_at).getTime();
  if (now.getTime() - lastUsed >= LAST_USED_RESOLUTION_MS) {
    row.last_used_at = now.toISOString();
    // Bookkeeping only: a database that cannot take this write (full, read-only, locked) must not
    // fail a request that only reads. The next request tries again.
    await touchApiKey(db, row.id, row.last_used_at).catch(() => {
      row.last_used_at = null;
    });
  }
  return found.context;
}

/** Authentication as http/auth.ts runs it: keys looked up through one cache per app. */
export function apiKeyAuthenticator(clock: Clock, pepper: string | undefined): Authenticate {
  const cache = new ApiKeyCache();
  return (db, key) => authenticateApiKey(db, clock, pepper, key, cache);
}
