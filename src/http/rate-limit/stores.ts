// Where bucket state lives: in the process (the default), or in Redis so every instance shares it.
// If Redis stops answering, the service keeps answering on the in-process buckets (fail open) and logs it.
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import {
  take,
  takeAll,
  TAKE_ALL_LUA,
  TAKE_LUA,
  utcDay,
  type BucketState,
  type Cost,
  type LimitPolicy,
  type TakeResult,
} from './token-bucket.js';

export interface RateLimitStore {
  take(key: string, policy: LimitPolicy, nowMs: number, cost: Cost): Promise<TakeResult>;
  /** The same, answered at once, by a store that holds its buckets in the process (no promise per request). */
  takeNow?(key: string, policy: LimitPolicy, nowMs: number, cost: Cost): TakeResult;
  /** A token from each of several buckets, or from none (see `takeAll`); one result per bucket, in order. */
  takeAll(buckets: readonly ChainedBucket[], nowMs: number, cost: Cost): Promise<TakeResult[]>;
  takeAllNow?(buckets: readonly ChainedBucket[], nowMs: number, cost: Cost): TakeResult[];
  close(): Promise<void>;
}

export interface ChainedBucket {
  key: string;
  policy: LimitPolicy;
}

/** In-process buckets; the least recently used are forgotten beyond `maxKeys` (a full bucket loses nothing). */
export class MemoryStore implements RateLimitStore {
  private readonly buckets = new Map<string, BucketState>();
  /** The key of the entry set last (the map's newest). */
  private newest: string | undefined;
  constructor(private readonly maxKeys = 100_000) {}

  async take(key: string, policy: LimitPolicy, nowMs: number, cost: Cost): Promise<TakeResult> {
    return this.takeNow(key, policy, nowMs, cost);
  }

  takeNow(key: string, policy: LimitPolicy, nowMs: number, cost: Cost): TakeResult {
    const stored = this.buckets.get(key);
    // A look that takes nothing (is this IP blocked?) stores nothing: the refill is computed from the stored
    // state either way, and an absent bucket is a full one, so an IP that never failed costs no entry.
    if (cost === 0) return take(stored, policy, nowMs, 0).result;
    const { state, result } = take(stored, policy, nowMs, cost);
    // The bucket used last is already the newest entry: it keeps its place (a delete and set of a map's one
    // entry shrank and grew the map's table on every request of a single key).
    if (key !== this.newest) {
      this.buckets.delete(key);
      this.newest = key;
    }
    this.store(key, state);
    return result;
  }

  private store(key: string, state: BucketState): void {
    this.buckets.set(key, state);
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string);
  }

  async takeAll(buckets: readonly ChainedBucket[], nowMs: number, cost: Cost): Promise<TakeResult[]> {
    return this.takeAllNow(buckets, nowMs, cost);
  }

  takeAllNow(buckets: readonly ChainedBucket[], nowMs: number, cost: Cost): TakeResult[] {
    const { states, results } = takeAll(
      buckets.map((bucket) => this.buckets.get(bucket.key)),
      buckets.map((bucket) => bucket.policy),
      nowMs,
      cost,
    );
    if (cost === 0) return results;
    buckets.forEach((bucket, index) => {
      this.buckets.delete(bucket.key);
      this.store(bucket.key, states[index]!);
    });
    this.newest = buckets.at(-1)?.key;
    return results;
  }

  async close(): Promise<void> {}
}

export class RedisStore implements RateLimitStore {
  private readonly redis: Redis;
  private firstConnection: Promise<void> | undefined;

  constructor(url: string) {
    // Fail fast instead of queueing commands while disconnected: the caller falls back to memory.
    // Loaded only when REDIS_URL is set: a process without Redis does not carry the client.
    const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
    this.redis = new RedisClient(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      commandTimeout: 500,
    });
    this.redis.on('error', () => {
      // Reported by the fail-open wrapper when a command fails; ioredis keeps reconnecting.
    });
  }

  /**
   * Requests arriving before the first connection is ready wait for it, at most 2 s counted from the first of
   * them (not from start-up, which on a busy machine can take longer than that by itself); later, while Redis
   * is away, they fail at once and the caller falls back to memory.
   */
  private firstReady(): Promise<void> {
    this.firstConnection ??=
      this.redis.status === 'ready'
        ? Promise.resolve()
        : new Promise((resolve) => {
            this.redis.once('ready', () => resolve());
            setTimeout(resolve, 2000).unref();
          });
    return this.firstConnection;
  }

  async take(key: string, policy: LimitPolicy, nowMs: number, cost: Cost): Promise<TakeResult> {
    await this.firstReady();
    const reply = (await this.redis.eval(
      TAKE_LUA,
      1,
      `bms:rl:${key}`,
      policy.burst,
      policy.perMinute,
      policy.perDay,
      nowMs,
      cost,
      utcDay(nowMs),
    )) as [number, number, number];
    return { allowed: reply[0] === 1, units: Number(reply[1]), used: Number(reply[2]) };
  }

  async takeAll(buckets: readonly ChainedBucket[], nowMs: number, cost: Cost): Promise<TakeResult[]> {
    await this.firstReady();
    const reply = (await this.redis.eval(
      TAKE_ALL_LUA,
      buckets.length,
      ...buckets.map((bucket) => `bms:rl:${bucket.key}`),
      nowMs,
      cost,
      utcDay(nowMs),
      ...buckets.flatMap((bucket) => [bucket.policy.burst, bucket.policy.perMinute, bucket.policy.perDay]),
    )) as number[];
    const allowed = reply[0] === 1;
    return buckets.map((_, index) => ({
      allowed,
      units: Number(reply[1 + index * 2]),
      used: Number(reply[2 + index * 2]),
    }));
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

/** Uses `primary` while it answers, `fallback` when it fails, logging at most every 10 s. */
export class FailOpenStore implements RateLimitStore {
  private lastReport = 0;
  constructor(
    private readonly primary: RateLimitStore,
    private readonly fallback: RateLimitStore,
    private readonly log: { error(fields: object, message: string): void },
  ) {}

  async take(key: string, policy: LimitPolicy, nowMs: number, cost: Cost): Promise<TakeResult> {
    try {
      return await this.primary.take(key, policy, nowMs, cost);
    } catch (error) {
      this.report(error);
      return this.fallback.take(key, policy, nowMs, cost);
    }
  }

  async takeAll(buckets: readonly ChainedBucket[], nowMs: number, cost: Cost): Promise<TakeResult[]> {
    try {
      return await this.primary.takeAll(buckets, nowMs, cost);
    } catch (error) {
      this.report(error);
      return this.fallback.takeAll(buckets, nowMs, cost);
    }
  }

  private report(error: unknown): void {
    if (Date.now() - this.lastReport > 10_000) {
      this.lastReport = Date.now();
      this.log.error({ err: error }, 'rate limit: Redis is not answering; limiting per process until it is back');
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close(), this.fallback.close()]);
  }
}
