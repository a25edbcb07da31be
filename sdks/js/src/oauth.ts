// An app's tokens (BMS's OAuth 2.1 server, contract §25): a client built with a refresh token asks for an access
// token before its first call, again before the one it holds expires and after a 401, and hands every new pair
// to `onTokens`: refresh tokens rotate at every use, so the app must keep the newest. Concurrent calls share
// one renewal; the refresh token itself is never logged or shown.
import { APIConnectionError, AuthenticationError } from './errors.js';
import { runtime, type FetchFunction } from './runtime.js';

export interface OAuthTokens {
  accessToken: string;
  refreshToken: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  scope: string;
  installId: string;
  accountId: string;
}

export interface OAuthOptions {
  /** The app's id (its client_id). */
  clientId: string;
  /** A confidential app's secret (`bmscs_…`); leave it out for a public app. */
  clientSecret?: string;
  /** The newest refresh token (`bmsrt_…`). */
  refreshToken: string;
  /** An access token still valid, to use before the first renewal. */
  accessToken?: string;
  /** When `accessToken` expires (milliseconds since the epoch). */
  expiresAt?: number;
  /** Called with every new pair, before it is used: store `refreshToken`, it replaces the one you had. */
  onTokens?: (tokens: OAuthTokens) => void | Promise<void>;
}

/** Renewed this long before the access token's expiry. */
const EARLY_MS = 30_000;

export class TokenRefresher {
  readonly #options: OAuthOptions;
  #refreshToken: string;
  #accessToken: string | undefined;
  #expiresAt: number;
  #renewing: Promise<string> | undefined;

  constructor(
    options: OAuthOptions,
    private readonly baseUrl: string,
    private readonly fetch: FetchFunction,
  ) {
    if (typeof options.clientId !== 'string' || typeof options.refreshToken !== 'string')
      throw new TypeError('oauth needs clientId and refreshToken.');
    this.#options = options;
    this.#refreshToken = options.refreshToken;
    this.#accessToken = options.accessToken;
    this.#expiresAt = options.expiresAt ?? (options.accessToken ? Number.POSITIVE_INFINITY : 0);
  }

  /** The access token to send now, renewed first when it is missing or about to expire. */
  async accessToken(): Promise<string> {
    if (this.#accessToken !== undefined && Date.now() < this.#expiresAt - EARLY_MS) return this.#accessToken;
    return this.renew();
  }

  /** A new pair, whatever the current one (after a 401); calls at the same time share one request. */
  renew(): Promise<string> {
    this.#renewing ??= this.#refresh().finally(() => {
      this.#renewing = undefined;
    });
    return this.#renewing;
  }

  async #refresh(): Promise<string> {
    const form = new runtime.URLSearchParams();
    form.set('grant_type', 'refresh_token');
    form.set('refresh_token', this.#refreshToken);
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    const { clientId, clientSecret } = this.#options;
    if (clientSecret === undefined) form.set('client_id', clientId);
    else
      headers.authorization = `Basic ${runtime.btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`)}`;
    let status: number;
    let text: string;
    try {
      const response = await this.fetch(`${this.baseUrl}/oauth/token`, {
        method: 'POST',
        headers,
        body: form.toString(),
        redirect: 'manual',
      });
      status = response.status;
      text = new runtime.TextDecoder().decode(new Uint8Array(await response.arrayBuffer()));
    } catch (error) {
      throw new APIConnectionError({
        status: null,
        code: 'CONNECTION_ERROR',
        message: `Could not reach BMS at ${this.baseUrl} to renew the access token.`,
        cause: error,
      });
    }
    const body = safeJson(text);
    if (status !== 200 || typeof body?.access_token !== 'string' || typeof body.refresh_token !== 'string')
      throw new AuthenticationError({
        status,
        code: 'INVALID_API_KEY',
        message: `BMS refused to renew the access token: ${String(body?.error ?? status)}${body?.error_description ? ` (${String(body.error_description)})` : ''}.`,
        requestId:
          typeof (body?.meta as { request_id?: unknown })?.request_id === 'string'
            ? String((body?.meta as { request_id: string }).request_id)
            : null,
      });
    const tokens: OAuthTokens = {
      accessToken: body.access_token,
      refreshToken: body.refresh_token,
      expiresAt: Date.now() + Number(body.expires_in ?? 3600) * 1000,
      scope: String(body.scope ?? ''),
      installId: String(body.install_id ?? ''),
      accountId: String(body.account_id ?? ''),
    };
    this.#refreshToken = tokens.refreshToken;
    this.#accessToken = tokens.accessToken;
    this.#expiresAt = tokens.expiresAt;
    await this.#options.onTokens?.(tokens);
    return tokens.accessToken;
  }
}

function safeJson(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
