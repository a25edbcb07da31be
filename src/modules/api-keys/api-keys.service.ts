// API keys through the API and the `bms` command (docs/api-contract.md §3, §20): made, listed, changed, rolled
// and revoked. A key acts on keys only within its own powers (no escalation); every change through the API
// records its event, never with a secret.
import { isUuid, newId, type Clock } from '../../core/deps.js';
import { fieldError, invalidState, validationError, type ErrorDetail } from '../../core/errors.js';
import { type Executor, fromJson, type Page, pageRequest, toPage } from '../../db/index.js';
import type { ApiKeyRow, NewApiKeyRow } from '../../db/types.js';
import { DEFAULT_RATE_LIMITS, insufficientScope, type RateLimitOverrides } from '../../kernel/auth-context.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import type { Scope } from '../../kernel/scopes.js';
import { previousAttributes, recordChange, recordEvent } from '../events/index.js';
import { requireRow } from '../shared/index.js';
import * as repository from './api-keys.repository.js';
import type {
  ApiKey,
  ApiKeyWithSecret,
  CreateApiKeyInput,
  ListApiKeysInput,
  RollApiKeyInput,
  UpdateApiKeyInput,
} from './api-keys.schemas.js';
import { forgetCachedKey } from './authentication.js';
import { networksWithin, normalizeCidrs } from './networks.js';
import { newSecret } from './secrets.js';

type Limits = { per_minute: number | null; per_day: number | null; burst: number | null };

export function presentApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    object: 'api_key',
    name: row.name,
    prefix: row.prefix,
    scopes: fromJson<Scope[]>(row.scopes),
    expires_at: row.expires_at,
    rate_limits: {
      per_minute: row.rate_limit_per_minute,
      per_day: row.rate_limit_per_day,
      burst: row.rate_limit_burst,
    },
    allowed_cidrs: fromJson<string[]>(row.allowed_cidrs),
    created_by: { type: row.created_by_type as 'cli' | 'api_key', id: row.created_by_id },
    last_used_at: row.last_used_at,
    previous_secret_expires_at: row.previous_key_hash === null ? null : row.previous_key_expires_at,
    revoked_at: row.revoked_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** What a key may grant: its scopes, expiry, limits and networks, as stored. */
interface Powers {
  scopes: readonly string[];
  expires_at: string | null;
  limits: Limits;
  allowed_cidrs: readonly string[];
}

function powersOf(row: ApiKeyRow): Powers {
  return {
    scopes: fromJson<string[]>(row.scopes),
    expires_at: row.expires_at,
    limits: { per_minute: row.rate_limit_per_minute, per_day: row.rate_limit_per_day, burst: row.rate_limit_burst },
    allowed_cidrs: fromJson<string[]>(row.allowed_cidrs),
  };
}

const LIMIT_DEFAULTS: Record<keyof Limits, number> = {
  per_minute: DEFAULT_RATE_LIMITS.perMinute,
  per_day: DEFAULT_RATE_LIMITS.perDay,
  burst: DEFAULT_RATE_LIMITS.burst,
};

/**
 * No escalation (docs/api-contract.md §20): scopes a subset of the caller's (403 naming the first missing
 * one), then, in one 422, an expiry no later than the caller's, limits no higher than the caller's (a null
 * limit is the server's default), and networks inside the caller's.
 */
function assertWithin(powers: Powers, caller: Powers): void {
  const missing = powers.scopes.find((scope) => !caller.scopes.includes(scope));
  if (missing) throw insufficientScope(missing);
  const details: ErrorDetail[] = [];
  if (caller.expires_at !== null && (powers.expires_at === null || powers.expires_at > caller.expires_at))
    details.push({
      field: 'expires_at',
      message: `must be at most ${caller.expires_at}, the expiry of the key making this change`,
    });
  for (const name of Object.keys(LIMIT_DEFAULTS) as Array<keyof Limits>) {
    const own = powers.limits[name] ?? LIMIT_DEFAULTS[name];
    const most = caller.limits[name] ?? LIMIT_DEFAULTS[name];
    if (own > most)
      details.push({ field: `rate_limits.${name}`, message: `must be at most ${most}, the key making this change's` });
  }
  if (!networksWithin(powers.allowed_cidrs, caller.allowed_cidrs))
    details.push({
      field: 'allowed_cidrs',
      message: `must lie within the networks of the key making this change (${caller.allowed_cidrs.join(', ')})`,
    });
  if (details.length > 0) throw validationError(details, 'A key cannot grant more than it has.');
}

/** The expiry as stored (UTC, milliseconds), so it compares with others as text; a 422 unless in the future. */
function futureExpiry<T extends string | null | undefined>(expiresAt: T, now: Date): T {
  if (expiresAt === null || expiresAt === undefined) return expiresAt;
  const time = new Date(expiresAt).getTime();
  if (time <= now.getTime()) throw fieldError('expires_at', 'must be in the future');
  return new Date(time).toISOString() as T;
}

async function callerRow(ctx: Context): Promise<ApiKeyRow> {
  const id = ctx.actor.id;
  const row = id === null ? undefined : await repository.findAccountApiKey(ctx.db, ctx.accountId, id);
  if (!row) throw new Error('an API key operation without a calling key');
  return row;
}

function keyRow(ctx: Context, id: string, lock = false): Promise<ApiKeyRow> {
  return requireRow('API key', id, (found) => repository.findAccountApiKey(ctx.db, ctx.accountId, found, lock));
}

function limitColumns(
  limits: Limits,
): Pick<ApiKeyRow, 'rate_limit_per_minute' | 'rate_limit_per_day' | 'rate_limit_burst'> {
  return {
    rate_limit_per_minute: limits.per_minute,
    rate_limit_per_day: limits.per_day,
    rate_limit_burst: limits.burst,
  };
}

/**
 * A key made by the calling key. What the body leaves out is the caller's own (its expiry, limits and
 * networks), so a limited key cannot make an unlimited one by omission.
 */
export async function createKey(
  ctx: Context,
  pepper: string | undefined,
  body: CreateApiKeyInput,
): Promise<ApiKeyWithSecret> {
  const input = { ...body, expires_at: futureExpiry(body.expires_at, ctx.clock.now()) };
  const allowed = input.allowed_cidrs === undefined ? undefined : normalizeCidrs(input.allowed_cidrs);
  return inTransaction(ctx, async (tx) => {
    const caller = powersOf(await callerRow(tx));
    const powers: Powers = {
      scopes: input.scopes,
      expires_at: input.expires_at === undefined ? caller.expires_at : input.expires_at,
      limits: { ...caller.limits, ...input.rate_limits },
      allowed_cidrs: allowed ?? caller.allowed_cidrs,
    };
    assertWithin(powers, caller);
    const { secret, prefix, hash } = newSecret(pepper);
    const now = tx.clock.now().toISOString();
    const row: ApiKeyRow = {
      id: newId(),
      account_id: tx.accountId,
      name: input.name,
      prefix,
      key_hash: hash,
      scopes: JSON.stringify(input.scopes),
      expires_at: powers.expires_at === null ? null : new Date(powers.expires_at).toISOString(),
      revoked_at: null,
      last_used_at: null,
      ...limitColumns(powers.limits),
      previous_key_hash: null,
      previous_key_expires_at: null,
      allowed_cidrs: JSON.stringify(powers.allowed_cidrs),
      created_by_type: 'api_key',
      created_by_id: tx.actor.id,
      created_at: now,
      updated_at: now,
    };
    await repository.insertApiKey(tx.db, row);
    const key = presentApiKey(row);
    await recordEvent(tx, 'api_key.created', key);
    return { ...key, secret };
  });
}

export async function getKey(ctx: Context, id: string): Promise<ApiKey> {
  return presentApiKey(await keyRow(ctx, id));
}

export async function listKeys(ctx: Context, query: ListApiKeysInput): Promise<Page<ApiKeyRow>> {
  const page = pageRequest({ ...query, sort: '-created_at' }, repository.API_KEY_SORTS);
  const { rows, resumeAfter } = await repository.listApiKeys(ctx.db, ctx.accountId, query, page);
  return toPage(rows, page, resumeAfter);
}

/** A key's name, scopes, expiry, limits or networks; the key must be within the caller's powers before and after. */
export async function updateKey(ctx: Context, id: string, body: UpdateApiKeyInput): Promise<ApiKey> {
  const input = { ...body, expires_at: futureExpiry(body.expires_at, ctx.clock.now()) };
  const allowed = input.allowed_cidrs === undefined ? undefined : normalizeCidrs(input.allowed_cidrs);
  const key = await inTransaction(ctx, async (tx) => {
    const caller = powersOf(await callerRow(tx));
    const current = await keyRow(tx, id, true);
    if (current.revoked_at !== null) throw invalidState('This key is revoked: it can no longer be changed.');
    const before = powersOf(current);
    assertWithin(before, caller);
    const after: Powers = {
      scopes: input.scopes ?? before.scopes,
      expires_at: input.expires_at === undefined ? before.expires_at : input.expires_at,
      limits: { ...before.limits, ...input.rate_limits },
      allowed_cidrs: allowed ?? before.allowed_cidrs,
    };
    assertWithin(after, caller);
    const patch: Partial<NewApiKeyRow> = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.scopes !== undefined ? { scopes: JSON.stringify(input.scopes) } : {}),
      ...(input.expires_at !== undefined
        ? { expires_at: input.expires_at === null ? null : new Date(input.expires_at).toISOString() }
        : {}),
      ...(input.rate_limits !== undefined ? limitColumns(after.limits) : {}),
      ...(allowed !== undefined ? { allowed_cidrs: JSON.stringify(allowed) } : {}),
    };
    if (Object.keys(patch).length === 0) return presentApiKey(current);
    patch.updated_at = tx.clock.now().toISOString();
    const updated = presentApiKey((await repository.updateApiKey(tx.db, tx.accountId, id, patch)) ?? current);
    await recordChange(tx, { resource: 'api_key', before: presentApiKey(current), after: updated });
    return updated;
  });
  forgetCachedKey(key.id);
  return key;
}

/**
 * Revokes a key of the account whose scopes are within the caller's (a weaker key cannot revoke a stronger
 * one: 403 naming the first scope it lacks); a key may always revoke itself. Twice is harmless.
 */
export async function revokeKey(ctx: Context, id: string): Promise<ApiKey> {
  const key = await inTransaction(ctx, async (tx) => {
    const current = await keyRow(tx, id, true);
    if (current.id !== tx.actor.id) {
      const callerScopes = powersOf(await callerRow(tx)).scopes;
      const missing = fromJson<string[]>(current.scopes).find((scope) => !callerScopes.includes(scope));
      if (missing) throw insufficientScope(missing);
    }
    if (current.revoked_at !== null) return presentApiKey(current);
    const now = tx.clock.now().toISOString();
    const updated =
      (await repository.updateApiKey(tx.db, tx.accountId, id, { revoked_at: now, updated_at: now })) ?? current;
    const revoked = presentApiKey(updated);
    await recordEvent(tx, 'api_key.revoked', revoked, {
      previous_attributes: previousAttributes(presentApiKey(current), revoked),
    });
    return revoked;
  });
  forgetCachedKey(key.id);
  return key;
}

/** A new secret for a key within the caller's powers; the old one works for `overlap_hours` more, then stops. */
export async function rollKey(
  ctx: Context,
  pepper: string | undefined,
  id: string,
  input: RollApiKeyInput,
): Promise<ApiKeyWithSecret> {
  const rolled = await inTransaction(ctx, async (tx) => {
    const caller = powersOf(await callerRow(tx));
    const current = await keyRow(tx, id, true);
    if (current.revoked_at !== null) throw invalidState('This key is revoked: it can no longer be rolled.');
    assertWithin(powersOf(current), caller);
    const now = tx.clock.now();
    const overlapHours = input.overlap_hours ?? 0;
    const { secret, prefix, hash } = newSecret(pepper);
    const patch: Partial<NewApiKeyRow> = {
      key_hash: hash,
      prefix,
      previous_key_hash: overlapHours > 0 ? current.key_hash : null,
      previous_key_expires_at:
        overlapHours > 0 ? new Date(now.getTime() + overlapHours * 3_600_000).toISOString() : null,
      updated_at: now.toISOString(),
    };
    const updated = presentApiKey((await repository.updateApiKey(tx.db, tx.accountId, id, patch)) ?? current);
    await recordEvent(tx, 'api_key.rolled', updated, {
      previous_attributes: previousAttributes(presentApiKey(current), updated),
    });
    return { ...updated, secret };
  });
  forgetCachedKey(rolled.id);
  return rolled;
}

// The `bms` command's side: the server's operator, unlimited by any key. Its keys say `created_by: cli`.

export interface CreatedApiKey {
  id: string;
  key: string;
  prefix: string;
  name: string;
  scopes: Scope[];
  expires_at: string | null;
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
    allowedCidrs?: string[];
  },
): Promise<CreatedApiKey> {
  const now = clock.now();
  if (input.expiresAt && input.expiresAt.getTime() <= now.getTime())
    throw new Error('The expiry must be in the future.');
  const { secret, prefix, hash } = newSecret(pepper);
  const row: NewApiKeyRow = {
    id: newId(),
    account_id: input.accountId,
    name: input.name,
    prefix,
    key_hash: hash,
    scopes: JSON.stringify(input.scopes),
    expires_at: input.expiresAt ? input.expiresAt.toISOString() : null,
    revoked_at: null,
    last_used_at: null,
    rate_limit_per_minute: input.rateLimits?.perMinute ?? null,
    rate_limit_per_day: input.rateLimits?.perDay ?? null,
    rate_limit_burst: input.rateLimits?.burst ?? null,
    previous_key_hash: null,
    previous_key_expires_at: null,
    allowed_cidrs: JSON.stringify(input.allowedCidrs ? normalizeCidrs(input.allowedCidrs) : []),
    created_by_type: 'cli',
    created_by_id: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  await repository.insertApiKey(db, row);
  return { id: row.id, key: secret, prefix, name: row.name, scopes: input.scopes, expires_at: row.expires_at ?? null };
}

/** The `bms keys list` answer: every key of the account, as the API shows it (and with its account). */
export async function listAccountApiKeys(
  db: Executor,
  accountId: string,
): Promise<Array<ApiKey & { account_id: string }>> {
  return (await repository.listAllApiKeys(db, accountId)).map((row) => ({
    ...presentApiKey(row),
    account_id: row.account_id,
  }));
}

/** Revokes a key by id (`bms keys revoke`); undefined when there is no such key. Revoking twice is harmless. */
export async function revokeApiKey(db: Executor, clock: Clock, id: string): Promise<ApiKey | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await repository.findApiKey(db, id);
  if (!row) return undefined;
  if (row.revoked_at !== null) return presentApiKey(row);
  const now = clock.now().toISOString();
  const updated = await repository.updateApiKey(db, row.account_id, id, { revoked_at: now, updated_at: now });
  forgetCachedKey(id);
  return presentApiKey(updated ?? row);
}
export { hashApiKey } from './secrets.js';
