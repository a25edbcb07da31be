// The authorization side (docs/api-contract.md §25): an install link opened once sets the consent cookie; an
// authorization request is checked and stored as a grant, which the consent page shows; Approve turns the
// stored grant (never the form) into a one-use code, Deny into access_denied. The CSRF value of the page is
// an HMAC of the grant's id keyed by the consent cookie, so it is worth nothing with another cookie.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { isUuid, newId } from '../../core/deps.js';
import { fromJson } from '../../db/index.js';
import type { AppInstallLinkRow, AppRow, OauthGrantRow } from '../../db/types.js';
import { inTransaction, type Runtime } from '../../kernel/context.js';
import { type Scope, SCOPES } from '../../kernel/scopes.js';
import * as repository from './apps.repository.js';
import { redirectUriMatches } from './redirect-uris.js';
import { hashSecret, looksLike, newSecret } from './secrets.js';
import { APP_LIMITS, type AppSettings } from './settings.js';

/** Opens an install link once: the consent cookie's value and where to send the browser, or undefined (404 page). */
export async function openInstallLink(
  runtime: Runtime,
  settings: AppSettings,
  token: string,
): Promise<{ consent: string; installUrl: string } | undefined> {
  if (!looksLike('installLink', token)) return undefined;
  const link = await repository.findInstallLinkByToken(runtime.db, hashSecret(token, settings.pepper));
  const now = runtime.clock.now();
  if (!link || link.opened_at !== null || new Date(link.expires_at).getTime() <= now.getTime()) return undefined;
  const app = await repository.findAppById(runtime.db, link.app_id);
  if (!app) return undefined;
  const consent = newSecret('consent', settings.pepper);
  const consentExpiresAt = new Date(now.getTime() + APP_LIMITS.consentSeconds * 1000).toISOString();
  const opened = await repository.openInstallLink(
    runtime.db,
    link.id,
    now.toISOString(),
    consent.hash,
    consentExpiresAt,
  );
  return opened ? { consent: consent.secret, installUrl: app.install_url } : undefined;
}

/** The install link whose consent the cookie carries, while it lasts. */
export async function liveConsent(
  runtime: Runtime,
  settings: AppSettings,
  cookie: string | undefined,
): Promise<AppInstallLinkRow | undefined> {
  if (cookie === undefined || !looksLike('consent', cookie)) return undefined;
  const link = await repository.findInstallLinkByConsent(runtime.db, hashSecret(cookie, settings.pepper));
  if (!link || link.consent_expires_at === null) return undefined;
  return new Date(link.consent_expires_at).getTime() > runtime.clock.now().getTime() ? link : undefined;
}

export function csrfValue(cookie: string, grantId: string): string {
  return createHmac('sha256', cookie).update(`consent:${grantId}`).digest('base64url');
}

export function csrfValid(cookie: string | undefined, grantId: string, presented: unknown): boolean {
  if (cookie === undefined || typeof presented !== 'string') return false;
  const expected = csrfValue(cookie, grantId);
  return presented.length === expected.length && timingSafeEqual(Buffer.from(presented), Buffer.from(expected));
}

export type AuthorizeOutcome =
  /** An HTML error page, never a redirect: unknown client or unregistered redirect URI. */
  | { kind: 'page'; reason: 'unknown_client' | 'bad_redirect_uri' }
  | { kind: 'redirect'; location: string }
  /** Valid, but no consent cookie for this app: the page says how to get an install link. */
  | { kind: 'no_consent'; app: AppRow }
  | { kind: 'consent'; app: AppRow; grant: OauthGrantRow; link: AppInstallLinkRow; denied: Scope[] };

/** The redirect URI with `params` (and `iss`, RFC 9207) added to its query. */
export function redirectWith(
  settings: AppSettings,
  redirectUri: string,
  params: Record<string, string | undefined>,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  url.searchParams.append('iss', settings.issuer);
  return url.toString();
}

/** Checks an authorization request (GET /oauth/authorize) and, with a live consent for its app, stores its grant. */
export async function startAuthorization(
  runtime: Runtime,
  settings: AppSettings,
  query: Record<string, string | undefined>,
  consentCookie: string | undefined,
): Promise<AuthorizeOutcome> {
  const clientId = query.client_id;
  const app =
    clientId !== undefined && isUuid(clientId) ? await repository.findAppById(runtime.db, clientId) : undefined;
  if (!app) return { kind: 'page', reason: 'unknown_client' };
  const redirectUri = query.redirect_uri;
  if (redirectUri === undefined || !redirectUriMatches(fromJson<string[]>(app.redirect_uris), redirectUri))
    return { kind: 'page', reason: 'bad_redirect_uri' };
  const state = query.state;
  const fail = (error: string, description: string): AuthorizeOutcome => ({
    kind: 'redirect',
    location: redirectWith(settings, redirectUri, { error, error_description: description, state }),
  });
  if (query.response_type !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported.');
  if (query.code_challenge_method !== 'S256')
    return fail('invalid_request', 'PKCE is required: code_challenge_method=S256 (plain is refused).');
  if (query.code_challenge === undefined || !/^[A-Za-z0-9_-]{43}$/.test(query.code_challenge))
    return fail(
      'invalid_request',
      'code_challenge must be the base64url SHA-256 of the code verifier (43 characters).',
    );
  if (query.resource !== undefined && ![`${settings.issuer}/v1`, `${settings.issuer}/mcp`].includes(query.resource))
    return fail('invalid_target', `resource must be ${settings.issuer}/v1 or ${settings.issuer}/mcp.`);
  const appScopes = fromJson<string[]>(app.scopes);
  const asked = query.scope === undefined || query.scope.trim() === '' ? appScopes : query.scope.trim().split(/ +/);
  if (asked.some((scope) => !appScopes.includes(scope)))
    return fail('invalid_scope', 'The scope asks for more than the app is registered for.');
  const link = await liveConsent(runtime, settings, consentCookie);
  if (!link || link.app_id !== app.id) return { kind: 'no_consent', app };
  const allowed = fromJson<string[]>(link.scopes);
  const granted = SCOPES.filter((scope) => asked.includes(scope) && allowed.includes(scope));
  const denied = SCOPES.filter((scope) => asked.includes(scope) && !allowed.includes(scope));
  if (granted.length === 0) return fail('invalid_scope', 'The install link allows none of the scopes asked for.');
  const grant: OauthGrantRow = {
    id: newId(),
    link_id: link.id,
    account_id: link.account_id,
    app_id: app.id,
    redirect_uri: redirectUri,
    code_challenge: query.code_challenge,
    state: state ?? null,
    scopes: JSON.stringify(granted),
    resource: query.resource ?? null,
    expires_at: link.consent_expires_at as string,
    code_hash: null,
    code_expires_at: null,
    redeemed_at: null,
    install_id: null,
    created_at: runtime.clock.now().toISOString(),
  };
  await repository.insertGrant(runtime.db, grant);
  return { kind: 'consent', app, grant, link, denied };
}

export type DecisionOutcome = { kind: 'forbidden' } | { kind: 'redirect'; location: string };

/**
 * Approve or Deny of a consent page: the cookie's live consent, a grant made for it and not yet answered, and
 * the page's CSRF value, else `forbidden` (a 403 page). The consent ends either way.
 */
export async function decide(
  runtime: Runtime,
  settings: AppSettings,
  consentCookie: string | undefined,
  form: Record<string, string | undefined>,
): Promise<DecisionOutcome> {
  const link = await liveConsent(runtime, settings, consentCookie);
  const grantId = form.grant;
  if (!link || grantId === undefined || !isUuid(grantId) || !csrfValid(consentCookie, grantId, form.csrf))
    return { kind: 'forbidden' };
  return inTransaction(runtime, async (tx) => {
    const grant = await repository.findGrant(tx.db, grantId);
    const now = tx.clock.now();
    if (!grant || grant.link_id !== link.id || grant.code_hash !== null) return { kind: 'forbidden' } as const;
    if (!(await repository.endConsent(tx.db, link.id, now.toISOString()))) return { kind: 'forbidden' } as const;
    const state = grant.state ?? undefined;
    if (form.decision !== 'approve')
      return {
        kind: 'redirect',
        location: redirectWith(settings, grant.redirect_uri, {
          error: 'access_denied',
          error_description: 'The business denied the install.',
          state,
        }),
      } as const;
    const code = newSecret('code', settings.pepper);
    await repository.updateGrant(tx.db, grant.id, {
      code_hash: code.hash,
      code_expires_at: new Date(now.getTime() + APP_LIMITS.codeSeconds * 1000).toISOString(),
    });
    return {
      kind: 'redirect',
      location: redirectWith(settings, grant.redirect_uri, { code: code.secret, state }),
    } as const;
  });
}
