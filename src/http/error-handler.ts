// Turns every failure (AppError, Fastify's own, unknown faults, unknown routes) into the contract's
// error envelope. Real faults are logged with the request id and answered 500 without internals.
import type { FastifyContextConfig, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from '../kernel/auth-context.js';
import type { Context } from '../kernel/context.js';
import { AppError, type ErrorDetail, validationError } from '../core/errors.js';
import { contextOf } from './auth.js';
import { semanticProblems } from './field-checks.js';
import { BODY_LIMIT_TEXT } from './json-body.js';
import { meta } from './envelope.js';
import type { RouteTable } from './route-table.js';
import { toDetails } from './validation.js';

/** A body limit in words: `1 MiB`, `10 MiB`, `16 KiB`, else bytes. */
function sizeText(bytes: number): string {
  if (bytes % 1_048_576 === 0) return `${bytes / 1_048_576} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** Fastify's own errors as the contract's; `bodyLimit` is the route's (the JSON limit unless the route sets one). */
const FASTIFY_ERRORS: Record<string, (bodyLimit: number | undefined) => AppError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: (bodyLimit) =>
    new AppError(
      'PAYLOAD_TOO_LARGE',
      `The body is larger than this route's ${bodyLimit === undefined ? BODY_LIMIT_TEXT : sizeText(bodyLimit)} limit.`,
    ),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with Content-Type: application/json.'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new AppError('BAD_REQUEST', 'Content-Length does not match the body.'),
  FST_ERR_CTP_INVALID_TYPE: () =>
    new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with Content-Type: application/json.'),
  FST_ERR_CTP_EMPTY_TYPE: () =>
    new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with Content-Type: application/json.'),
  FST_ERR_BAD_URL: () => new AppError('NOT_FOUND', 'No such route.'),
};

/**
 * Database errors a concurrent request can cause despite our checks: a row referred to was deleted in
 * between, or a unique value was taken (409); the database is busy or chose this transaction as a
 * deadlock victim (503, try again).
 */
function fromDatabaseError(error: Error & { code?: unknown }): AppError | undefined {
  const code = typeof error.code === 'string' ? error.code : '';
  if (code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY')
    return new AppError(
      'CONFLICT',
      'An object this request refers to was changed or deleted by another request. Retry it.',
    );
  if (code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
    return new AppError('CONFLICT', 'Another request changed the same data at the same time. Retry it.');
  if (
    ['40001', '40P01', '55P03'].includes(code) ||
    code.startsWith('SQLITE_BUSY') ||
    code.startsWith('SQLITE_LOCKED')
  ) {
    return new AppError('SERVICE_UNAVAILABLE', 'The database is busy. Retry in a moment.', undefined, {
      'retry-after': '1',
    });
  }
  if (isStorageUnavailable(code)) {
    return new AppError(
      'SERVICE_UNAVAILABLE',
      'The database cannot take writes right now (full, read-only or failing). Retry later.',
      undefined,
      { 'retry-after': '5' },
    );
  }
  return undefined;
}

/**
 * Storage faults no retry of ours can cure: disk full, a read-only file or database, an I/O error, a
 * database shutting down or refusing connections. They are 503 with Retry-After, and /ready reports them.
 */
export function isStorageUnavailable(code: string): boolean {
  return (
    ['SQLITE_FULL', 'SQLITE_CANTOPEN', 'SQLITE_NOTADB', 'SQLITE_CORRUPT'].includes(code) ||
    code.startsWith('SQLITE_READONLY') ||
    code.startsWith('SQLITE_IOERR') ||
    ['53100', '53000', '53200', '25006', '57P01', '57P02', '57P03', '58030'].includes(code) ||
    code.startsWith('08')
  );
}

export function toAppError(error: FastifyError | Error, bodyLimit?: number): AppError | undefined {
  if (error instanceof AppError) return error;
  const fromDatabase = fromDatabaseError(error);
  if (fromDatabase) return fromDatabase;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    // Path parameters carry only ids: one that cannot be valid names nothing that exists.
    if (fastifyError.validationContext === 'params') return new AppError('NOT_FOUND', 'No such resource.');
    return validationError(toDetails(fastifyError.validation as never));
  }
  const mapped = fastifyError.code ? FASTIFY_ERRORS[fastifyError.code] : undefined;
  if (mapped) return mapped(bodyLimit);
  // Any other client error Fastify raises before our code runs (e.g. a malformed header).
  if (fastifyError.statusCode && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new AppError('BAD_REQUEST', fastifyError.message);
  }
  return undefined;
}

/** At most this many details in one answer; the message counts the rest. */
const MAX_DETAILS = 100;

/** The envelope's `error` of `error`: at most MAX_DETAILS details, the message counting the rest. */
export function errorBody(error: AppError): { code: string; message: string; details?: ErrorDetail[] } {
  const details =
    error.details && error.details.length > MAX_DETAILS ? error.details.slice(0, MAX_DETAILS) : error.details;
  const message =
    details !== error.details
      ? `${error.message} (${MAX_DETAILS} of ${error.details!.length} problems listed)`
      : error.message;
  return { code: error.code, message, ...(details ? { details } : {}) };
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError) {
  const body = { error: errorBody(error), meta: meta(request) };
  return reply.code(error.status).headers(error.headers).send(body);
}

/** The answer to a fault that is no client's: logged by the caller, quoted by the request's id. */
export const internalError = (requestId: string): AppError =>
  new AppError(
    'INTERNAL_ERROR',
    `Something went wrong on our side. Quote request id ${requestId} if you contact support.`,
  );

/**
 * A body the schema refused, with the semantic checks' findings added for the fields the schema did not name
 * (by field name everywhere, and the route's own): one 422 names every wrong field, schema and semantic checks
 * together (http/field-checks.ts). `validationContext`: the part the schema refused (`body`), if it was the schema.
 */
export async function withFieldChecks(
  appError: AppError,
  route: {
    body: unknown;
    validationContext: string | undefined;
    config: Pick<FastifyContextConfig, 'fieldChecks' | 'referenceChecks'>;
    caller: AuthContext | undefined;
    context: () => Context;
  },
): Promise<AppError> {
  if (appError.code !== 'VALIDATION_ERROR') return appError;
  const { fieldChecks, referenceChecks } = route.config;
  // A 422 of the service (it stops at the first reference it cannot find) gains the rest on routes that
  // declare reference checks; elsewhere only the schema's 422 gains the semantic checks' findings.
  if (route.validationContext !== 'body' && referenceChecks === undefined) return appError;
  const { caller } = route;
  const references =
    referenceChecks && caller ? (body: unknown) => referenceChecks(route.context(), body, caller.scopes) : undefined;
  const details = appError.details ?? [];
  const more = await semanticProblems(route.body, details, fieldChecks, references);
  return more.length === 0 ? appError : validationError([...details, ...more]);
}

export function registerErrorHandling(app: FastifyInstance, routes: RouteTable): void {
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const code =
      typeof (error as { code?: unknown }).code === 'string' ? String((error as { code?: unknown }).code) : '';
    if (isStorageUnavailable(code)) {
      app.storage.failed(app.clock.now());
      request.log.error({ err: error }, 'storage unavailable');
    }
    const appError = toAppError(error, request.routeOptions.bodyLimit);
    if (appError) {
      const checked = await withFieldChecks(appError, {
        body: request.body,
        validationContext: error.validationContext,
        config: request.routeOptions.config,
        caller: request.auth,
        context: () => contextOf(request),
      });
      return sendError(request, reply, checked);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(request, reply, internalError(request.id));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? request.url;
    const allowed = routes.allowedMethods(path);
    if (allowed.length > 0) {
      const error = new AppError(
        'METHOD_NOT_ALLOWED',
        `${request.method} is not allowed on ${path}. Allowed: ${allowed.join(', ')}.`,
        undefined,
        { allow: allowed.join(', ') },
      );
      return sendError(request, reply, error);
    }
    return sendError(request, reply, new AppError('NOT_FOUND', `No route ${request.method} ${path}.`));
  });
}
