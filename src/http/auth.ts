// Authentication and scope checks, run before the body is parsed so the contract's order holds:
// 401 -> (rate limit) -> 403 -> body and validation.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { insufficientScope, type Authenticate, type AuthContext } from '../kernel/auth-context.js';
import type { Actor, Context } from '../kernel/context.js';
import { currentOperation, type OperationScope } from '../kernel/operation-scope.js';
import type { Scope } from '../kernel/scopes.js';
import { AppError } from '../core/errors.js';
import { rateLimited, type Admission, type RateLimiter } from './rate-limit/rate-limiter.js';
import { addRouteHookOf, needsKey } from './route-hooks.js';

const REALM = 'Bearer realm="bms"';

function authenticationRequired(): AppError {
  return new AppError('AUTHENTICATION_REQUIRED', 'Send your API key as "Authorization: Bearer <API_KEY>".', undefined, {
    'www-authenticate': REALM,
  });
}

function invalidApiKey(): AppError {
  return new AppError(
    'INVALID_API_KEY',
    'The API key is not valid. It may be mistyped, revoked or expired.',
    undefined,
    {
      'www-authenticate': `${REALM}, error="invalid_token"`,
    },
  );
}

/** RFC 9728 §5.1: a 401 of the MCP server names where its protected-resource metadata is. */
function withResourceMetadata(error: AppError, metadataUrl: string): AppError {
  const challenge = error.headers?.['www-authenticate'] ?? REALM;
  return new AppError(error.code, error.message, error.details, {
    ...error.headers,
    'www-authenticate': `${challenge}, resource_metadata="${metadataUrl}"`,
  });
}

export { insufficientScope };

/**
 * 403 unless the key also holds `scope`: an operation that reads or changes a second resource needs that
 * resource's scope too (docs/api-contract.md §3), checked before the second resource is looked up, so a 422 on
 * its id cannot tell a key without that scope whether it exists.
 */
export function requireScope(request: FastifyRequest, scope: Scope): void {
  if (!auth(request).scopes.has(scope)) throw insufficientScope(scope);
}

/**
 * What the rules run with for this request: the app's database, clock and links, the caller's account, and
 * the caller as the actor of its events (docs/api-contract.md §20).
 */
export function contextOf(request: FastifyRequest, actorType: 'api_key' | 'mcp' = 'api_key'): Context {
  const caller = auth(request);
  // An operation of a change set runs in the set's transaction; a request with an Idempotency-Key in its own
  // (http/idempotency.ts).
  const operation = currentOperation();
  if (operation?.db) return operationContext(request.server, caller, operation, actorType);
  const { clock, links } = request.server;
  const db = request.transaction ?? request.server.db;
  return { db, clock, links, accountId: caller.accountId, actor: actorOf(caller, operation, actorType) };
}

/**
 * The context of an operation that runs in a change set's or an import's transaction (`operation.db`): what its
 * route's code runs with, whether it came through the route (`contextOf`) or without HTTP (http/direct-route.ts).
 */
export function operationContext(
  app: Pick<FastifyInstance, 'db' | 'clock' | 'links'>,
  caller: AuthContext,
  operation: OperationScope,
  actorType: 'api_key' | 'mcp' = 'api_key',
): Context {
  const { clock, links } = app;
  const actor = actorOf(caller, operation, actorType);
  const db = operation.db ?? app.db;
  return { db, clock, links, accountId: caller.accountId, actor, origin: operation.origin };
}

/** The caller as the actor of its events: an app's token acts as its install, over /v1 as `app`, through the MCP server as `mcp` (§25). */
function actorOf(caller: AuthContext, operation: OperationScope | undefined, actorType: 'api_key' | 'mcp'): Actor {
  const type = operation?.actor ?? actorType;
  return caller.appId === undefined
    ? { type, id: caller.keyId }
    : { type: type === 'mcp' ? 'mcp' : 'app', id: caller.keyId, app_id: caller.appId };
}

/** The caller's account and key; only present on routes that declare a scope (or are `authenticated`). */
export function auth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new Error('auth() called on a route without a scope');
  return request.auth;
}

/** `next(value)` at once when the value is at hand, after it when it is a promise (a step that waits). */
function andThen<T>(value: T | Promise<T>, next: (value: T) => void | Promise<void>): void | Promise<void> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/**
 * On every route that declares a scope: an IP that failed authentication too often gets 429 before its
 * key is even looked at; then the key (401), the key's rate limit (429, and the rate-limit headers on
 * every answer), and the scope (403). Each step answers at once when it can (a cached key, in-process
 * buckets), so a request pays for a promise only where a step really waits (a query, Redis).
 */
export function registerAuthentication(
  app: FastifyInstance,
  options: { authenticate: Authenticate; limiter: RateLimiter; resourceMetadataUrl: string },
): void {
  const { limiter } = options;
  app.decorateRequest('auth', undefined);

  const admitted = (reply: FastifyReply, scope: Scope | undefined, context: AuthContext, admission: Admission) => {
    reply.headers(admission.headers);
    if (!admission.allowed) throw rateLimited(admission.retryAfter, admission.headers);
    if (scope !== undefined && !context.scopes.has(scope)) throw insufficientScope(scope);
  };
  const authenticated = (
    request: FastifyRequest,
    reply: FastifyReply,
    scope: Scope | undefined,
    ip: string,
    now: Date,
    context: AuthContext | undefined,
  ): void | Promise<void> => {
    if (!context) {
      const header = request.headers.authorization;
      return limiter.recordFailedAuthentication(ip, now).then(() => {
        const error = header === undefined || header.trim() === '' ? authenticationRequired() : invalidApiKey();
        throw request.routeOptions.config?.resourceMetadata
          ? withResourceMetadata(error, options.resourceMetadataUrl)
          : error;
      });
    }
    request.auth = context;
    // An operation of a change set: its tokens were taken by the set (n for n operations, §26). A dry run's
    // read of an object's previous state answers only what the set's own update names.
    const operation = currentOperation();
    if (operation) {
      if (operation.pass !== 'read' && scope !== undefined && !context.scopes.has(scope))
        throw insufficientScope(scope);
      return;
    }
    return andThen(limiter.admit(context, now), (admission) => admitted(reply, scope, context, admission));
  };
  const unblocked = (
    request: FastifyRequest,
    reply: FastifyReply,
    scope: Scope | undefined,
    ip: string,
    now: Date,
    blockedFor: number | undefined,
  ): void | Promise<void> => {
    if (blockedFor !== undefined) throw rateLimited(blockedFor);
    const header = request.headers.authorization;
    const match = header === undefined ? null : /^Bearer +(\S+)\s*$/i.exec(header);
    const context = match?.[1] ? options.authenticate(app.db, match[1], ip) : undefined;
    return andThen(context, (found) => authenticated(request, reply, scope, ip, now, found));
  };
  const authorize = (request: FastifyRequest, reply: FastifyReply, scope: Scope | undefined): void | Promise<void> => {
    const now = app.clock.now();
    // An import's row, written by the worker as the import's creator: no key to look up (kernel/operation-scope.ts).
    const acting = currentOperation()?.auth;
    if (acting && request.headers.authorization === undefined)
      return authenticated(request, reply, scope, '127.0.0.1', now, acting);
    // Read once: behind trusted proxies, each read of request.ip parses X-Forwarded-For again.
    const ip = request.ip;
    return andThen(limiter.blockedFor(ip, now), (blockedFor) => unblocked(request, reply, scope, ip, now, blockedFor));
  };

  // A hook per route, made with the route's scope (request.routeOptions is a new object at each read).
  addRouteHookOf(app, needsKey, 'onRequest', (route) => {
    const scope = route.config?.scope;
    return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
      let waiting: void | Promise<void>;
      try {
        waiting = authorize(request, reply, scope);
      } catch (error) {
        done(error as Error);
        return;
      }
      if (waiting) waiting.then(() => done(), done);
      else done();
    };
  });
}
