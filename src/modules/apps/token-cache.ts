// Access tokens found by hash, kept briefly so that a request with one costs no query, as keys are
// (modules/api-keys/authentication.ts). A change in this process that may end a token or narrow it (a revocation,
// an uninstall, an app's new scopes, an install's new limits) empties the cache, so it holds from the very next
// request here; another instance sees it within the entries' 2 s.
import type { AuthContext } from '../../kernel/auth-context.js';

export const TOKEN_CACHE_TTL_MS = 2000;
const MAX_ENTRIES = 10_000;

export interface KnownToken {
  tokenId: string;
  installId: string;
  context: AuthContext;
  expiresMs: number;
  /** The install's last_used_at as milliseconds, written at most once a minute. */
  lastUsedMs: number;
}

let generation = 0;
const entries = new Map<string, { token: KnownToken; filled: number; generation: number }>();

/** Forgets every cached token (rare: revocations, uninstalls, changes to an app or an install). */
export function forgetInstallTokens(): void {
  generation += 1;
  entries.clear();
}

export function cachedToken(tokenHash: string): KnownToken | undefined {
  const hit = entries.get(tokenHash);
  if (hit && hit.generation === generation && performance.now() - hit.filled < TOKEN_CACHE_TTL_MS) return hit.token;
  if (hit) entries.delete(tokenHash);
  return undefined;
}

/** Keeps a token found at `generationAtRead`, unless something changed since the read began. */
export function keepToken(tokenHash: string, token: KnownToken, generationAtRead: number): void {
  if (generationAtRead !== generation) return;
  if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
  entries.set(tokenHash, { token, filled: performance.now(), generation });
}

export function cacheGeneration(): number {
  return generation;
}
