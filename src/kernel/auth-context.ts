// Who is calling: what authentication finds behind an API key, as the HTTP layer, the rate limiter and
// the modules all name it. The api-keys module makes it; http/ only carries it.
import { AppError } from '../core/errors.js';
import type { Executor } from '../db/index.js';

/** A key's own limits, where they differ from the server's defaults. */
export interface RateLimitOverrides {
  perMinute?: number | undefined;
  perDay?: number | undefined;
  burst?: number | undefined;
}

export interface AuthContext {
  accountId: string;
  /** The key's id; for an app's token (docs/api-contract.md §25), its install's, whose bucket it takes. */
  keyId: string;
  /** The app whose token this is; absent for an API key. */
  appId?: string | undefined;
  scopes: ReadonlySet<string>;
  /**
   * For an app's token: the events its install hears of (docs/api-contract.md §25), in the forms of the events
   * module's `appSubscriptions`, which are all it reads of `/v1/events`; absent for an API key.
   */
  eventSubscriptions?: readonly string[] | undefined;
  rateLimits: RateLimitOverrides;
  /**
   * The keys that minted this one through the API, parent first, each with its own limits: a request takes a
   * token from each of their buckets too, so minting keys never multiplies a budget (contract §32). Empty for
   * a key made by the `bms` command.
   */
  ancestors: ReadonlyArray<{ keyId: string; rateLimits: RateLimitOverrides }>;
}

/**
 * The account and scopes behind a presented key, or undefined when the key is malformed, unknown, revoked
 * or expired, or the caller's address `ip` is outside the key's `allowed_cidrs`. The composition passes the
 * api-keys module's to http/auth.ts.
 */
export type Authenticate = (
  db: Executor,
  key: string,
  ip: string,
) => AuthContext | undefined | Promise<AuthContext | undefined>;

/** The contract's per-key limits where a key has no override (docs/api-contract.md §4). */
export const DEFAULT_RATE_LIMITS = { perMinute: 60, perDay: 10_000, burst: 100 } as const;

const REALM = 'Bearer realm="bms"';

/** 403 INSUFFICIENT_SCOPE naming the scope (docs/api-contract.md §2): from a route's check or a rule's. */
export function insufficientScope(scope: string): AppError {
  return new AppError(
    'INSUFFICIENT_SCOPE',
    `This API key lacks the scope '${scope}' that this operation requires.`,
    undefined,
    {
      'www-authenticate': `${REALM}, error="insufficient_scope", scope="${scope}"`,
    },
  );
}
