// The hub's forms are protected the way a page without sessions can be: a double-submit cookie. The page
// sets a random value in an HttpOnly, SameSite=Strict cookie scoped to the hub's path as the browser sees it
// (PUBLIC_BASE_URL's path + /hub) and puts the same value in
// each form; an answer is taken only when both arrive and match, and only from this site (Origin and
// Sec-Fetch-Site, when the browser sends them). Another site can neither read the value nor send the
// cookie with its own form.
import { randomBytes, timingSafeEqual } from 'node:crypto';

export const CSRF_COOKIE = 'bms_hub_csrf';
const VALUE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The cookie's value among a request's cookies (parsed by @fastify/cookie), when it is one we could have set. */
export function csrfFromCookies(cookies: Record<string, string | undefined>): string | undefined {
  const value = cookies[CSRF_COOKIE];
  return value !== undefined && VALUE_PATTERN.test(value) ? value : undefined;
}

export function newCsrfValue(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The cookie's options (for @fastify/cookie's setCookie). `path` is the hub's path in the browser's address
 * bar (`/bms/hub` behind a proxy that adds `/bms`), not the server's own `/hub`: a browser sends a cookie only
 * with requests under its path. `secure` when the public address is https (a test or development server on
 * http cannot use it).
 */
export function csrfCookieOptions(secure: boolean, hubPath: string) {
  return { path: hubPath, httpOnly: true, sameSite: 'strict', secure } as const;
}

export function csrfMatches(cookie: string | undefined, field: unknown): boolean {
  if (cookie === undefined || typeof field !== 'string' || field.length !== cookie.length) return false;
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(field));
}

/**
 * True unless the browser says the form came from this origin. `Sec-Fetch-Site` decides when sent (only
 * `same-origin` is taken: a sibling subdomain is another site here); otherwise an `Origin` other than
 * the address the request was made to or PUBLIC_BASE_URL's. `Origin: null` is what a page with
 * `Referrer-Policy: no-referrer` (ours) sends, so alone it proves nothing either way.
 */
export function fromAnotherSite(
  headers: { origin?: string | undefined; 'sec-fetch-site'?: string | string[] | undefined },
  ownOrigins: readonly string[],
): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined) return site !== 'same-origin';
  const origin = headers.origin;
  return origin !== undefined && origin !== 'null' && !ownOrigins.includes(origin);
}
