// Client authentication at the token, revocation and introspection endpoints (RFC 6749 §2.3, §25 of the
// contract): confidential apps by client_secret_basic or client_secret_post (the secret a roll replaced works
// through its overlap), public ones by client_id alone.
import { timingSafeEqual } from 'node:crypto';
import { isUuid } from '../../core/deps.js';
import type { Executor } from '../../db/index.js';
import type { AppRow } from '../../db/types.js';
import * as repository from './apps.repository.js';
import { hashSecret } from './secrets.js';

/** An RFC 6749 §5.2 error: the endpoint answers `{error, error_description}` with this status. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

export interface AuthenticatedClient {
  app: AppRow;
}

function sameHash(a: string | null, b: string): boolean {
  return a !== null && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** The credentials of a request: the Basic header's, else the form's. */
function credentialsOf(
  authorization: string | undefined,
  form: Record<string, string | undefined>,
): { clientId: string | undefined; secret: string | undefined; basic: boolean } {
  const basic = authorization === undefined ? null : /^Basic +([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
  if (basic?.[1]) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return { clientId: undefined, secret: undefined, basic: true };
    // RFC 6749 §2.3.1: both parts are form-urlencoded inside the header.
    const decode = (text: string) => {
      try {
        return decodeURIComponent(text.replace(/\+/g, ' '));
      } catch {
        return undefined;
      }
    };
    return { clientId: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)), basic: true };
  }
  return { clientId: form.client_id, secret: form.client_secret, basic: false };
}

export async function authenticateClient(
  db: Executor,
  pepper: string | undefined,
  now: Date,
  authorization: string | undefined,
  form: Record<string, string | undefined>,
  options: { confidentialOnly?: boolean } = {},
): Promise<AuthenticatedClient> {
  const { clientId, secret, basic } = credentialsOf(authorization, form);
  const refuse = () =>
    new OAuthError(
      'invalid_client',
      'Client authentication failed: unknown client_id, or a wrong or missing client secret.',
      401,
      basic ? { 'www-authenticate': 'Basic realm="bms"' } : {},
    );
  if (clientId === undefined || !isUuid(clientId)) throw refuse();
  if (!basic && form.client_id !== undefined && clientId !== form.client_id) throw refuse();
  const app = await repository.findAppById(db, clientId);
  if (!app) throw refuse();
  if (app.client_type === 'public') {
    if (options.confidentialOnly || secret !== undefined) throw refuse();
    return { app };
  }
  if (secret === undefined || secret === '') throw refuse();
  const hash = hashSecret(secret, pepper);
  const previousLive =
    app.previous_secret_expires_at !== null && new Date(app.previous_secret_expires_at).getTime() > now.getTime();
  if (sameHash(app.client_secret_hash, hash) || (previousLive && sameHash(app.previous_secret_hash, hash)))
    return { app };
  throw refuse();
}
