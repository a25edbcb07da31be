import { ERROR_CODES, type ErrorCode } from './error-codes.js';

// One class per kind of failure, so callers can `instanceof` what they handle. Every error carries the
// API's envelope: status, code, message, details and the request id to quote to support.

export interface ErrorDetail {
  /** Path of the offending field, such as `line_items[2].quantity`. */
  field: string;
  message: string;
}

/**
 * The codes the SDK sets itself: no response (CONNECTION_ERROR, TIMEOUT), the caller's abort (ABORTED), a
 * success that is not the API's JSON (INVALID_RESPONSE), or an answer without the API's envelope (HTTP_502).
 */
export type SdkErrorCode = 'CONNECTION_ERROR' | 'TIMEOUT' | 'ABORTED' | 'INVALID_RESPONSE' | `HTTP_${number}`;

/** What `BmsError.code` can be: the API's closed set (ErrorCode, generated) or one the SDK sets. */
export type BmsErrorCode = ErrorCode | SdkErrorCode;

export interface ErrorInit {
  status: number | null;
  code: BmsErrorCode;
  message: string;
  details?: ErrorDetail[];
  requestId?: string | null;
  headers?: Record<string, string>;
  /** A response body that was not the API's JSON (a proxy's page), kept here rather than in the message. */
  body?: string | null;
  cause?: unknown;
}

export class BmsError extends Error {
  /** The HTTP status; null when no response arrived. */
  readonly status: number | null;
  /**
   * The machine-readable code, such as `VALIDATION_ERROR`: one of the API's codes (ERROR_CODES) or one the SDK
   * sets (SdkErrorCode). A newer server may answer with a code this version does not list; it arrives as sent.
   */
  readonly code: BmsErrorCode;
  readonly details: ErrorDetail[];
  /** The server's id of the request (the `X-Request-Id` header); null when no response arrived. */
  readonly requestId: string | null;
  readonly headers: Record<string, string>;
  /** The response body when it was not the API's JSON envelope (at most 64 KB); else null. */
  readonly body: string | null;

  constructor(init: ErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.requestId = init.requestId ?? null;
    this.headers = init.headers ?? {};
    this.body = init.body ?? null;
  }
}

/** The request never got an answer: refused or reset connection, DNS failure. `cause` is the network error. */
export class APIConnectionError extends BmsError {}
/** @deprecated The 0.1 name of {@link APIConnectionError}; the same class. */
export const ApiConnectionError = APIConnectionError;
/** An attempt took longer than `timeout` (after the retries, if any). */
export class APITimeoutError extends APIConnectionError {}
/** The caller's AbortSignal fired: before an attempt, during one, or while waiting to retry. */
export class RequestAbortedError extends BmsError {}
/** The server answered with a redirect (status and `location`), which the SDK never follows: the API key
 * must not go to another address, and a POST must not turn into a GET. Fix `baseUrl`. */
export class RedirectError extends BmsError {
  get location(): string | null {
    return this.headers['location'] ?? null;
  }
}
/** A success status whose body is not the API's JSON (a proxy's HTML page, a cut-off body); see `body`. */
export class InvalidResponseError extends BmsError {}
/** 400, 405, 413, 415 and other refusals of the request as sent. */
export class InvalidRequestError extends BmsError {}
/** 422 (and 400 INVALID_JSON): see `details` for each field. */
export class ValidationError extends InvalidRequestError {}
/** 422 IDEMPOTENCY_KEY_REUSED: the `idempotencyKey` was used before with a different request. */
export class IdempotencyKeyReusedError extends InvalidRequestError {}
/** 401: the API key is missing, unknown, revoked or expired. */
export class AuthenticationError extends BmsError {}
/** 403: the key lacks the scope the endpoint needs. */
export class PermissionDeniedError extends BmsError {}
/** 404. */
export class NotFoundError extends BmsError {}
/** 409: the request conflicts with the stored state. */
export class ConflictError extends BmsError {}
/** 409 INVALID_STATE: the status does not allow this change. */
export class InvalidStateError extends ConflictError {}
/** 412: the object changed since the ETag passed as `ifMatch`. */
export class PreconditionFailedError extends ConflictError {}
/** 429 after the retries ran out. */
export class RateLimitError extends BmsError {
  /** Seconds the server asked to wait (from delta-seconds or an HTTP date), or null when it did not say. */
  get retryAfter(): number | null {
    const delay = retryAfterDelay(this.headers['retry-after']);
    return delay === null ? null : delay / 1000;
  }
}
/** 5xx after the retries ran out. */
export class ServerError extends BmsError {}

/** Retry-After in milliseconds (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterDelay(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * The error class for a response: chosen by the status the API documents for the code (ERROR_CODES,
 * generated from the OpenAPI document), else by the response's status.
 */
export function errorFor(init: ErrorInit): BmsError {
  const documented: number | null | undefined = (ERROR_CODES as Record<string, number | null>)[init.code];
  const status = documented ?? init.status ?? 0;
  if (init.code === 'IDEMPOTENCY_KEY_REUSED') return new IdempotencyKeyReusedError(init);
  if (status === 422 || init.code === 'INVALID_JSON') return new ValidationError(init);
  if (status === 401) return new AuthenticationError(init);
  if (status === 403) return new PermissionDeniedError(init);
  if (status === 404) return new NotFoundError(init);
  if (status === 409) return init.code === 'INVALID_STATE' ? new InvalidStateError(init) : new ConflictError(init);
  if (status === 412) return new PreconditionFailedError(init);
  if (status === 429) return new RateLimitError(init);
  if (status >= 300 && status < 400) return new RedirectError(init);
  if (status >= 500) return new ServerError(init);
  return new InvalidRequestError(init);
}
