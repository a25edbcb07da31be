// Rate limits of the contract: per API key, a bucket of 100 refilled at 60 a minute and 10,000 a UTC day
// (each overridable per key); per client IP, failed authentications, so keys cannot be guessed at speed.
import { DEFAULT_RATE_LIMITS, type AuthContext } from '../../kernel/auth-context.js';
import { AppError } from '../../core/errors.js';
import type { RateLimitStore } from './stores.js';
import { UNITS_PER_TOKEN, type LimitPolicy, type TakeResult } from './token-bucket.js';

export const DEFAULT_POLICY: LimitPolicy = { ...DEFAULT_RATE_LIMITS };
/** 20 failed authentications in a row from one IP, then one more every 3 seconds. */
export const FAILED_AUTH_POLICY: LimitPolicy = { burst: 20, perMinute: 20, perDay: Number.MAX_SAFE_INTEGER };

function secondsToUtcMidnight(nowMs: number): number {
  const midnight = new Date(nowMs);
  midnight.setUTCHours(24, 0, 0, 0);
  return Math.max(1, Math.ceil((midnight.getTime() - nowMs) / 1000));
}

/** Seconds until the bucket holds `units` again (at least 1 when it must wait at all). */
function secondsUntil(policy: LimitPolicy, current: number, units: number): number {
  return current >= units ? 0 : Math.max(1, Math.ceil((units - current) / policy.perMinute / 1000));
}

export interface Admission {
  allowed: boolean;
  headers: Record<string, string>;
  retryAfter: number;
}

function describe(policy: LimitPolicy, result: TakeResult, nowMs: number): Admission {
  const tokens = Math.floor(result.units / UNITS_PER_TOKEN);
  const fullIn = secondsUntil(policy, result.units, policy.burst * UNITS_PER_TOKEN);
  const dayLeft = Math.max(0, policy.perDay - result.used);
  const dayReset = secondsToUtcMidnight(nowMs);
  const retryAfter = dayLeft === 0 ? dayReset : secondsUntil(policy, result.units, UNITS_PER_TOKEN);
  return {
    allowed: result.allowed,
    retryAfter: Math.max(1, retryAfter),
    headers: {
      'ratelimit-policy': `"minute";q=${policy.perMinute};w=60;bms-burst=${policy.burst}, "day";q=${policy.perDay};w=86400`,
      ratelimit: `"minute";r=${tokens};t=${fullIn}, "day";r=${dayLeft};t=${dayReset}`,
      'x-ratelimit-limit': String(policy.burst),
      'x-ratelimit-remaining': String(Math.min(tokens, dayLeft)),
      'x-ratelimit-reset': String(Math.ceil(nowMs / 1000) + (dayLeft === 0 ? dayReset : fullIn)),
    },
  };
}

export function rateLimited(retryAfter: number, headers: Record<string, string> = {}): AppError {
  return new AppError(
    'RATE_LIMITED',
    `Too many requests. Retry after ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`,
    undefined,
    { ...headers, 'retry-after': String(retryAfter) },
  );
}

export class RateLimiter {
  constructor(private readonly store: RateLimitStore) {}

  policyFor(auth: AuthContext): LimitPolicy {
    return {
      burst: auth.rateLimits.burst ?? DEFAULT_POLICY.burst,
      perMinute: auth.rateLimits.perMinute ?? DEFAULT_POLICY.perMinute,
      perDay: auth.rateLimits.perDay ?? DEFAULT_POLICY.perDay,
    };
  }

  /**
   * Takes a token for an authenticated request; the headers describe the state after it. Answered at once
   * (no promise) by an in-process store.
   */
  admit(auth: AuthContext, now: Date): Admission | Promise<Admission> {
    const policy = this.policyFor(auth);
    const nowMs = now.getTime();
    const bucket = `key:${auth.keyId}`;
    if (this.store.takeNow) return describe(policy, this.store.takeNow(bucket, policy, nowMs, 1), nowMs);
    return this.store.take(bucket, policy, nowMs, 1).then((result) => describe(policy, result, nowMs));
  }

  /** Takes a token from a bucket of callers without a key (the client hub's pages, per IP). */
  async admitAnonymous(bucket: string, policy: LimitPolicy, now: Date): Promise<Admission> {
    return describe(policy, await this.store.take(bucket, policy, now.getTime(), 1), now.getTime());
  }

  /** Seconds to wait when this IP has used up its failed authentications, else undefined (at once in process). */
  blockedFor(ip: string, now: Date): number | undefined | Promise<number | undefined> {
    const bucket = `ip:${ip}`;
    const wait = (result: TakeResult) =>
      result.allowed ? undefined : secondsUntil(FAILED_AUTH_POLICY, result.units, UNITS_PER_TOKEN);
    if (this.store.takeNow) return wait(this.store.takeNow(bucket, FAILED_AUTH_POLICY, now.getTime(), 0));
    return this.store.take(bucket, FAILED_AUTH_POLICY, now.getTime(), 0).then(wait);
  }

  async recordFailedAuthentication(ip: string, now: Date): Promise<void> {
    await this.store.take(`ip:${ip}`, FAILED_AUTH_POLICY, now.getTime(), 1);
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
