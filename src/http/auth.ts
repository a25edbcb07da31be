// Authentication and scope checks, run before the body is parsed so the contract's order holds:
// 401 -> (rate limit) -> 403 -> body and validation.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticateApiKey, type AuthContext } from '../modules/api-keys/api-keys.service.js';
import { AppError } from './errors.js';

const REALM = 'Bearer realm="bms"';

function authenticationRequired(): AppError {
  return new AppError('AUTHENTICATION_REQUIRED', 'Send your API key as "Authorization: Bearer <API_KEY>".', undefined, { 'www-authenticate': REALM });
}

function invalidApiKey(): AppError {
  return new AppError('INVALID_API_KEY', 'The API key is not valid. It may be mistyped, revoked or expired.', undefined, {
    'www-authenticate': `${REALM}, error="invalid_token"`,
  });
}

function insufficientScope(scope: string): AppError {
  return new AppError('INSUFFICIENT_SCOPE', `This API key lacks the scope '${scope}' that this operation requires.`, undefined, {
    'www-authenticate': `${REALM}, error="insufficient_scope", scope="${scope}"`,
  });
}

/** The caller's account and key; only present on routes that declare a scope. */
export function auth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new Error('auth() called on a route without a scope');
  return request.auth;
}

export type AfterAuthenticationHook = (request: FastifyRequest, auth: AuthContext) => Promise<void> | void;

export function registerAuthentication(app: FastifyInstance, options: { pepper: string | undefined; afterAuthentication?: AfterAuthenticationHook[] }): void {
  app.decorateRequest('auth', undefined);
  app.addHook('onRequest', async (request) => {
    const scope = request.routeOptions.config.scope;
    if (!scope) return;
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') throw authenticationRequired();
    const match = /^Bearer +(\S+)\s*$/i.exec(header);
    const context = match?.[1] ? await authenticateApiKey(app.db, app.clock, options.pepper, match[1]) : undefined;
    if (!context) throw invalidApiKey();
    request.auth = context;
    for (const hook of options.afterAuthentication ?? []) await hook(request, context);
    if (!context.scopes.has(scope)) throw insufficientScope(scope);
  });
}
