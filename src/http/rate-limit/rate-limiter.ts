// Rate limits of the contract: per API key, a bucket of 100 refilled at 60 a minute and 10,000 a UTC day
// (each overridable per key); per client IP, failed authentications, so keys cannot be guessed at speed.
import { DEFAULT_RATE_LIMITS, type AuthContext } from '../../kernel/auth-context.js';
import { AppError } from '../../core/errors.js';
import type { ChainedBucket, RateLimitStore } from './stores.js';
import { UNITS_PER_TOKEN, type LimitPolicy, type TakeResult } from './token-bucket.js';

export const DEFAULT_POLICY: LimitPolicy = { ...DEFAULT_RATE_LIMITS };
/** 20 failed authentications in a row from one IP, then one more every 3 seconds. */
export const FAILED_AUTH_POLICY: LimitPolicy = { burst: 20, perMinute: 20, perDay: Number.MAX_SAFE_INTEGER };

const DAY_MS = 86_400_000;

/** Seconds to the next UTC midnight (a UTC day is exactly 86,400,000 ms in JavaScript's time). */
function secondsToUtcMidnight(nowMs: number): number {
  return Math.max(1, Math.ceil((DAY_MS - (nowMs % DAY_MS)) / 1000));
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

/** A policy with the parts of its headers that do not change from request to request, made once. */
interface DescribedPolicy {
  policy: LimitPolicy;
  /** The RateLimit-Policy header. */
  header: string;
  /** X-RateLimit-Limit. */
  limit: string;
}

function describedPolicy(policy: LimitPolicy): DescribedPolicy {
  return {
    policy,
    header: `"minute";q=${policy.perMinute};w=60;bms-burst=${policy.burst}, "day";q=${policy.perDay};w=86400`,
    limit: String(policy.burst),
  };
}

function describe(described: DescribedPolicy, result: TakeResult, nowMs: number): Admission {
  const { policy } = described;
  const tokens = Math.floor(result.units / UNITS_PER_TOKEN);
  const fullIn = secondsUntil(policy, result.units, policy.burst * UNITS_PER_TOKEN);
  const dayLeft = Math.max(0, policy.perDay - result.used);
  const dayReset = secondsToUtcMidnight(nowMs);
  const retryAfter = dayLeft === 0 ? dayReset : secondsUntil(policy, result.units, UNITS_PER_TOKEN);
  return {
    allowed: result.allowed,
    retryAfter: Math.max(1, retryAfter),
    headers: {
      'ratelimit-policy': described.header,
      ratelimit: `"minute";r=${tokens};t=${fullIn}, "day";r=${dayLeft};t=${dayReset}`,
      'x-ratelimit-limit': described.limit,
      'x-ratelimit-remaining': `${Math.min(tokens, dayLeft)}`,
      'x-ratelimit-reset': `${Math.ceil(nowMs / 1000) + (dayLeft === 0 ? dayReset : fullIn)}`,
    },
  };
}

/**
 * The headers of a request that took a token from a chain of buckets (its key's first, then those of the keys
 * that minted it): the key's own policy, and what is left of the tightest bucket, since the next request
 * needs a token from each. Seconds until full and Retry-After are those of the bucket that waits longest.
 */
function describeChain(
  described: DescribedPolicy,
  chain: readonly ChainedBucket[],
  results: TakeResult[],
  nowMs: number,
) {
  const dayReset = secondsToUtcMidnight(nowMs);
  let tokens = Number.POSITIVE_INFINITY;
  let dayLeft = Number.POSITIVE_INFINITY;
  let fullIn = 0;
  let retryAfter = 0;
  results.forEach((result, index) => {
    const { policy } = chain[index]!;
    const left = Math.max(0, policy.perDay - result.used);
    tokens = Math.min(tokens, Math.floor(result.units / UNITS_PER_TOKEN));
    dayLeft = Math.min(dayLeft, left);
    fullIn = Math.max(fullIn, secondsUntil(policy, result.units, policy.burst * UNITS_PER_TOKEN));
    retryAfter = Math.max(retryAfter, left === 0 ? dayReset : secondsUntil(policy, result.units, UNITS_PER_TOKEN));
  });
  return {
    allowed: results[0]!.allowed,
    retryAfter: Math.max(1, retryAfter),
    headers: {
      'ratelimit-policy': described.header,
      ratelimit: `"minute";r=${tokens};t=${fullIn}, "day";r=${dayLeft};t=${dayReset}`,
      'x-ratelimit-limit': described.limit,
      'x-ratelimit-remaining': `${Math.min(tokens, dayLeft)}`,
      'x-ratelimit-reset': `${Math.ceil(nowMs / 1000) + (dayLeft === 0 ? dayReset : fullIn)}`,
    },
  };
}

/** What admit() needs of a key, made once per authenticated key (the key cache hands out one context per key). */
interface KeyLimits {
  bucket: string;
  described: DescribedPolicy;
  /** The key's bucket and those of the keys that minted it, when there are any (else undefined: one bucket). */
  chain: ChainedBucket[] | undefined;
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
  /** By context: a context is made when a key is (re)loaded into the key cache, so a changed limit gets a new one. */
  private readonly keyLimits = new WeakMap<AuthContext, KeyLimits>();

  constructor(private readonly store: RateLimitStore) {}

  policyFor(auth: Pick<AuthContext, 'rateLimits'>): LimitPolicy {
    return {
      burst: auth.rateLimits.burst ?? DEFAULT_POLICY.burst,
      perMinute: auth.rateLimits.perMinute ?? DEFAULT_POLICY.perMinute,
      perDay: auth.rateLimits.perDay ?? DEFAULT_POLICY.perDay,
    };
  }

  private limitsOf(auth: AuthContext): KeyLimits {
    const bucket = `key:${auth.keyId}`;
    const policy = this.policyFor(auth);
    const chain =
      auth.ancestors.length === 0
        ? undefined
        : [
            { key: bucket, policy },
            ...auth.ancestors.map((ancestor) => ({ key: `key:${ancestor.keyId}`, policy: this.policyFor(ancestor) })),
          ];
    return { bucket, described: describedPolicy(policy), chain };
  }

  /**
   * Takes a token for an authenticated request, from the key's bucket and from the bucket of every key that
   * minted it (contract §32: minting never multiplies a budget); the headers describe the state after it.
   * Answered at once (no promise) by an in-process store.
   */
  admit(auth: AuthContext, now: Date): Admission | Promise<Admission> {
    let limits = this.keyLimits.get(auth);
    if (limits === undefined) {
      limits = this.limitsOf(auth);
      this.keyLimits.set(auth, limits);
    }
    const { bucket, described, chain } = limits;
    const nowMs = now.getTime();
    if (chain !== undefined) {
      if (this.store.takeAllNow) return describeChain(described, chain, this.store.takeAllNow(chain, nowMs, 1), nowMs);
      return this.store.takeAll(chain, nowMs, 1).then((results) => describeChain(described, chain, results, nowMs));
    }
    if (this.store.takeNow) return describe(described, this.store.takeNow(bucket, described.policy, nowMs, 1), nowMs);
    return this.store.take(bucket, described.policy, nowMs, 1).then((result) => describe(described, result, nowMs));
  }

  /**
   * `count` more tokens for a request that stands for several (a change set of n operations takes n − 1 more
   * once its body is parsed, §26), one at a time; the first refusal is answered (undefined for none asked), and
   * then every token the request took is given back.
   */
  async admitMore(auth: AuthContext, now: Date, count: number): Promise<Admission | undefined> {
    let last: Admission | undefined;
    for (let taken = 0; taken < count; taken += 1) {
      last = await this.admit(auth, now);
      if (!last.allowed) {
        // Refused: the tokens this request took are given back, the first (taken on arrival) too (§26).
        await this.giveBack(auth, now, taken + 1);
        return last;
      }
    }
    return last;
  }

  /**
   * Gives `count` tokens back to the key's bucket and those above it (a change set refused for want of tokens:
   * a refused request takes none, §4, §26).
   */
  async giveBack(auth: AuthContext, now: Date, count: number): Promise<void> {
    let limits = this.keyLimits.get(auth);
    if (limits === undefined) {
      limits = this.limitsOf(auth);
      this.keyLimits.set(auth, limits);
    }
    const { bucket, described, chain } = limits;
    for (let given = 0; given < count; given += 1) {
      if (chain !== undefined) await this.store.takeAll(chain, now.getTime(), -1);
      else await this.store.take(bucket, described.policy, now.getTime(), -1);
    }
  }

  /** Takes a token from a bucket of callers without a key (the client hub's pages, per IP). */
  async admitAnonymous(bucket: string, policy: LimitPolicy, now: Date): Promise<Admission> {
    return describe(describedPolicy(policy), await this.store.take(bucket, policy, now.getTime(), 1), now.getTime());
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
