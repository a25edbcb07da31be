// Who is calling: what authentication finds behind an API key, as the HTTP layer, the rate limiter and
// the modules all name it. The api-keys module makes it; http/ only carries it.
import type { Executor } from '../db/database.js';

/** A key's own limits, where they differ from the server's defaults. */
export interface RateLimitOverrides {
  perMinute?: number | undefined;
  perDay?: number | undefined;
  burst?: number | undefined;
}

export interface AuthContext {
  accountId: string;
  keyId: string;
  scopes: ReadonlySet<string>;
  rateLimits: RateLimitOverrides;
}

/**
 * The account and scopes behind a presented key, or undefined when the key is malformed, unknown, revoked
 * or expired. The composition passes the api-keys module's to http/auth.ts.
 */
export type Authenticate = (db: Executor, key: string) => Promise<AuthContext | undefined>;
