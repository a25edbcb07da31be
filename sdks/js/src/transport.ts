// HTTP for the SDK: authentication, JSON, timeouts, the error classes, and retries with exponential
// backoff and jitter. Retried are connection failures and timeouts, 429, 5xx, and a 409 that carries
// Retry-After (an idempotent POST whose first attempt is still running), waiting as long as `Retry-After`
// says when the server says. Every request the SDK sends is safe to repeat: GET, PUT and DELETE are
// idempotent, and every POST carries an Idempotency-Key (one per call, the same on each retry), so the
// server replays the first result instead of creating twice. Redirects are never followed.
import {
  APIConnectionError,
  APITimeoutError,
  errorFor,
  InvalidResponseError,
  RequestAbortedError,
  retryAfterDelay,
  type BmsErrorCode,
  type ErrorDetail,
} from './errors.js';
import type { ErrorCode } from './error-codes.js';
import { formBody, type UploadFile, writeToFile } from './files.js';
import { Page, PagePromise } from './pagination.js';
import type { ResponseInfo, WithResponse } from './response.js';
import { type OAuthOptions, TokenRefresher } from './oauth.js';
import { environment, runtime, type AbortSignalLike, type FetchFunction, type FetchResponse } from './runtime.js';

export const VERSION = '0.3.0';

/** One line per attempt, for a `log` hook or `BMS_LOG=debug`. Never holds the API key or a body. */
export interface RequestLog {
  method: string;
  url: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** null when no response arrived. */
  status: number | null;
  requestId: string | null;
  durationMs: number;
  /** Why the attempt failed without a response, or why it will be retried. */
  error?: string;
  /** Milliseconds until the next attempt, when there will be one. */
  retryInMs?: number;
}

export interface BmsClientOptions {
  /** A secret key, `bms_` followed by 40 characters; default the `BMS_API_KEY` environment variable. */
  apiKey?: string;
  /**
   * An app's tokens instead of a key (contract §25): the client renews the access token with the refresh token
   * before it expires and after a 401, and hands each new pair to `onTokens`.
   */
  oauth?: OAuthOptions;
  /** Where the API is served; default `BMS_BASE_URL`, else `http://localhost:3000`. */
  baseUrl?: string;
  /** Per attempt, in milliseconds; default 30,000. */
  timeout?: number;
  /** Retries after the first attempt; default 2. */
  maxRetries?: number;
  fetch?: FetchFunction;
  /** Called after every attempt; `BMS_LOG=debug` logs the same to stderr when no hook is given. */
  log?: (entry: RequestLog) => void;
}

export interface RequestOptions {
  /** Sent as `Idempotency-Key` on a POST; by default a new UUID per call, kept across its retries. */
  idempotencyKey?: string;
  /** Sent as `If-Match` on an update or delete: the `etag` of the version you read (else 412). */
  ifMatch?: string | null;
  timeout?: number;
  maxRetries?: number;
  /** Stops the call: before an attempt, during one, or while it waits to retry (RequestAbortedError). */
  signal?: AbortSignalLike;
  /** More headers for this call (a feature flag, a tracing header); they cannot replace `authorization`. */
  headers?: Record<string, string>;
  /** More query parameters for this call, beside the method's own (which they override). */
  query?: Query;
  /**
   * Sent as `If-None-Match` (a PDF's `etag` from an earlier `getPdf`): when the document has not changed, the
   * server answers 304 and the call resolves to empty bytes with `lastResponse.status` 304.
   */
  ifNoneMatch?: string;
}

export type { ResponseInfo, UploadFile, WithResponse };

type QueryValue = string | number | boolean | null | undefined | readonly string[];
/** Query parameters: an array is sent comma-separated, null and undefined are left out. */
export type Query = Record<string, QueryValue>;
/** What a request sends besides its method and path. */
export interface Parts {
  body?: unknown;
  /** A body that is not JSON (an import's CSV file): sent as it is, with its content type. */
  text?: { body: string; contentType: string };
  /** An upload: the form's text fields, then the file as the part `file`, sent as multipart/form-data. */
  form?: { fields: object; file: UploadFile };
  query?: Query;
  /**
   * A POST that takes no Idempotency-Key (creating or rolling an API key: the server keeps no secret to
   * replay). None is sent unless the caller names one, and a call that got no answer is not retried, since
   * it may have been carried out; answers that say it was not (429, 503) are retried as usual.
   */
  unkeyed?: boolean;
}

/**
 * A method's params as a request's parts: the keys its query takes go in the query, the rest in the body
 * (a create that also takes `?on_conflict=reject`). Generated methods call it.
 */
export function splitParams(params: object, queryKeys: readonly string[]): Parts {
  const body: Record<string, unknown> = {};
  const query: Query = {};
  for (const [key, value] of Object.entries(params)) {
    if (queryKeys.includes(key)) query[key] = value as Query[string];
    else body[key] = value;
  }
  return { body, query };
}

const RETRY_BASE_MS = 500;
const RETRY_CAP_MS = 8_000;
/** A longer Retry-After is not waited for: the error is raised at once. */
const RETRY_AFTER_LIMIT_MS = 60_000;
/** How much of a body that is not the API's JSON an error keeps. */
const BODY_KEPT = 64 * 1024;

/** Exponential backoff with jitter: 250–500 ms, then 500–1000 ms, ..., capped at 4–8 s. */
export function backoffDelay(attempt: number): number {
  const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

export { retryAfterDelay };

/**
 * A Retry-After wait plus up to 10% (at most a second) more, so that the clients a 429 or a 503 turned away
 * together do not all come back in the same instant.
 */
export function retryAfterWithJitter(delay: number): number {
  return delay + Math.random() * Math.min(delay * 0.1, 1_000);
}

function aborted(signal: AbortSignalLike): RequestAbortedError {
  return new RequestAbortedError({
    status: null,
    code: 'ABORTED',
    message: 'The request was aborted.',
    cause: signal.reason,
  });
}

/** Waits, or rejects with RequestAbortedError as soon as the signal fires. */
function sleep(ms: number, signal: AbortSignalLike | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(aborted(signal));
    const onAbort = (): void => {
      runtime.clearTimeout(timer);
      reject(aborted(signal!));
    };
    const timer = runtime.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function headersOf(response: FetchResponse): Record<string, string> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
  return headers;
}

/** A body that is not the API's JSON, described in a short message; the body itself goes in `body`. */
function describeBody(headers: Record<string, string>, text: string): string {
  const type = headers['content-type']?.split(';')[0] ?? 'no content type';
  return text === '' ? 'an empty body' : `a ${type} body of ${text.length} characters that is not the API's JSON`;
}

/**
 * The server's address without a trailing slash or `/v1` (every path the SDK sends starts with `/v1`, and
 * `https://bms.example.com/v1` is a natural thing to paste). Anything that is not an http(s) URL is refused
 * at once: retried, it would only fail as a connection error three times.
 */
export function normalizeBaseUrl(value: string): string {
  const trimmed = value.trim().replace(/\/+$/, '').replace(/\/v1$/, '');
  let url: { protocol: string } | undefined;
  try {
    url = new runtime.URL(trimmed);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new TypeError(
      `baseUrl must be an http:// or https:// URL such as https://bms.example.com; got ${JSON.stringify(value)}.`,
    );
  return trimmed;
}

export class Transport {
  readonly #apiKey: string | undefined;
  readonly #tokens: TokenRefresher | undefined;
  readonly baseUrl: string;
  readonly #timeout: number;
  readonly #maxRetries: number;
  readonly #fetch: FetchFunction;
  readonly #log: ((entry: RequestLog) => void) | undefined;

  constructor(options: BmsClientOptions = {}) {
    const apiKey = options.oauth ? options.apiKey : (options.apiKey ?? environment('BMS_API_KEY'));
    if (!options.oauth && (typeof apiKey !== 'string' || apiKey === ''))
      throw new TypeError('BmsClient needs an apiKey (or the BMS_API_KEY environment variable), or oauth.');
    this.#apiKey = apiKey;
    this.baseUrl = normalizeBaseUrl(options.baseUrl ?? environment('BMS_BASE_URL') ?? 'http://localhost:3000');
    this.#timeout = options.timeout ?? 30_000;
    this.#maxRetries = options.maxRetries ?? 2;
    const fetch = options.fetch ?? runtime.fetch;
    if (!fetch) throw new TypeError('No global fetch: pass one as the fetch option.');
    this.#fetch = fetch;
    this.#tokens = options.oauth ? new TokenRefresher(options.oauth, this.baseUrl, fetch) : undefined;
    this.#log =
      options.log ??
      (environment('BMS_LOG') === 'debug'
        ? (entry) => runtime.console.error('[bms]', JSON.stringify(entry))
        : undefined);
  }

  async request<T>(method: string, path: string, parts: Parts, options: RequestOptions = {}): Promise<WithResponse<T>> {
    const { json, info } = await this.json(method, path, parts, options);
    Object.defineProperty(json.data, 'lastResponse', { value: info, enumerable: false });
    return json.data as WithResponse<T>;
  }

  /** A binary answer (a PDF, a report's CSV), as bytes with `lastResponse`. */
  async requestBytes(
    method: string,
    path: string,
    parts: Parts,
    options: RequestOptions = {},
    accept = 'application/pdf',
  ): Promise<WithResponse<Uint8Array>> {
    const { bytes, info } = await this.send(method, path, parts, options, accept);
    Object.defineProperty(bytes, 'lastResponse', { value: info, enumerable: false });
    return bytes as WithResponse<Uint8Array>;
  }

  /**
   * A binary answer streamed to the file `destination` (temporary name, flushed, renamed; nothing left behind on
   * failure): what the server answered, with the bytes on disk.
   */
  async requestToFile(
    method: string,
    path: string,
    destination: string,
    parts: Parts,
    options: RequestOptions = {},
    accept = 'application/pdf',
  ): Promise<ResponseInfo> {
    const { info } = await this.send(method, path, parts, options, accept, (response) =>
      writeToFile(destination, response.body),
    );
    return info;
  }

  list<T>(path: string, query: Query, options: RequestOptions = {}): PagePromise<T> {
    const load = async (cursor?: string): Promise<Page<T>> => {
      const { json, info } = await this.json(
        'GET',
        path,
        { query: cursor === undefined ? query : { ...query, cursor } },
        options,
      );
      const pagination = (json.meta as { pagination?: { has_more: boolean; next_cursor: string | null } } | undefined)
        ?.pagination;
      if (!Array.isArray(json.data) || !pagination)
        throw new InvalidResponseError({
          status: info.status,
          code: 'INVALID_RESPONSE',
          message: `BMS answered ${info.status} to a list without a page.`,
          requestId: info.requestId,
          headers: info.headers,
        });
      return new Page(json.data as T[], pagination.has_more, pagination.next_cursor, info.requestId, load, info);
    };
    return new PagePromise(() => load());
  }

  /** A success answer's JSON envelope; anything else (HTML, a cut-off body) is an InvalidResponseError. */
  private async json(
    method: string,
    path: string,
    parts: Parts,
    options: RequestOptions,
  ): Promise<{ json: { data: unknown; meta?: unknown }; info: ResponseInfo }> {
    const { text, info } = await this.send(method, path, parts, options, 'application/json');
    try {
      const json = JSON.parse(text) as { data: unknown; meta?: unknown } | null;
      if (json === null || typeof json !== 'object' || json.data === null || typeof json.data !== 'object')
        throw new SyntaxError('The body has no data object.');
      return { json, info };
    } catch (error) {
      throw new InvalidResponseError({
        status: info.status,
        code: 'INVALID_RESPONSE',
        message: `BMS answered ${info.status} with ${describeBody(info.headers, text)}.`,
        requestId: info.requestId,
        headers: info.headers,
        body: text.slice(0, BODY_KEPT),
        cause: error,
      });
    }
  }

  private url(path: string, query: Query = {}): string {
    const search = new runtime.URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined || value === null) continue;
      search.set(name, Array.isArray(value) ? value.join(',') : String(value));
    }
    const text = search.toString();
    return `${this.baseUrl}${path}${text ? `?${text}` : ''}`;
  }

  private async send(
    method: string,
    path: string,
    parts: Parts,
    options: RequestOptions,
    accept: string,
    /** Takes a success's body instead of reading it into memory (a download to a file); called per attempt. */
    sink?: (response: FetchResponse) => Promise<void>,
  ): Promise<{ text: string; bytes: Uint8Array; info: ResponseInfo }> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#tokens ? await this.#tokens.accessToken() : this.#apiKey}`,
      accept,
      'user-agent': `bms-sdk-js/${VERSION}`,
    };
    if (parts.body !== undefined) headers['content-type'] = 'application/json';
    if (parts.text !== undefined) headers['content-type'] = parts.text.contentType;
    const form = parts.form && (await formBody('file', parts.form.fields, parts.form.file));
    if (form) headers['content-type'] = form.contentType;
    // A stream with a known length (a file) is sent with it rather than chunked.
    if (form?.streamed && form.length !== undefined) headers['content-length'] = String(form.length);
    if (method === 'POST' && (options.idempotencyKey !== undefined || !parts.unkeyed))
      headers['idempotency-key'] = options.idempotencyKey ?? runtime.crypto.randomUUID();
    if (options.ifMatch != null) headers['if-match'] = options.ifMatch;
    if (options.ifNoneMatch != null) headers['if-none-match'] = options.ifNoneMatch;
    for (const [name, value] of Object.entries(options.headers ?? {}))
      if (name.toLowerCase() !== 'authorization') headers[name.toLowerCase()] = value;
    const url = this.url(path, { ...parts.query, ...options.query });
    // What the log hook sees: the path without its query, whose filters may be personal data (email=).
    const logged = url.split('?')[0]!;
    const body = form
      ? undefined
      : parts.text !== undefined
        ? parts.text.body
        : parts.body === undefined
          ? undefined
          : JSON.stringify(parts.body);
    // A stream is read once: its upload is not retried.
    const maxRetries = form && !form.replayable ? 0 : (options.maxRetries ?? this.#maxRetries);
    const timeout = options.timeout ?? this.#timeout;
    const signal = options.signal;
    let renewed = false;

    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw aborted(signal);
      const retriesLeft = attempt < maxRetries;
      const started = Date.now();
      const log = (entry: Omit<RequestLog, 'method' | 'url' | 'attempt' | 'durationMs'>): void =>
        this.#log?.({ method, url: logged, attempt: attempt + 1, durationMs: Date.now() - started, ...entry });
      const controller = new runtime.AbortController();
      let timedOut = false;
      const timer = runtime.setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeout);
      const onAbort = (): void => controller.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      let response: FetchResponse;
      let bytes: Uint8Array;
      try {
        response = await this.#fetch(url, {
          method,
          headers,
          ...(form ? { body: form.body() } : body === undefined ? {} : { body }),
          ...(form?.streamed ? { duplex: 'half' as const } : {}),
          signal: controller.signal,
          // Node's fetch keeps a streamed body whole in memory while a redirect could still replay it; with
          // `error` it keeps nothing (a redirect then fails the upload, as a connection error).
          redirect: form?.streamed ? 'error' : 'manual',
        });
        if (sink && response.status >= 200 && response.status < 300) {
          await sink(response);
          bytes = new Uint8Array(0);
        } else bytes = new Uint8Array(await response.arrayBuffer());
      } catch (error) {
        if (signal?.aborted) throw aborted(signal);
        const reason = timedOut
          ? `timed out after ${timeout} ms`
          : error instanceof Error
            ? ((error.cause as Error | undefined)?.message ?? error.message)
            : String(error);
        if (retriesLeft && !parts.unkeyed) {
          const delay = backoffDelay(attempt);
          log({ status: null, requestId: null, error: reason, retryInMs: Math.round(delay) });
          await sleep(delay, signal);
          continue;
        }
        log({ status: null, requestId: null, error: reason });
        const Kind = timedOut ? APITimeoutError : APIConnectionError;
        throw new Kind({
          status: null,
          code: timedOut ? 'TIMEOUT' : 'CONNECTION_ERROR',
          message: `Could not reach BMS at ${this.baseUrl} (${reason}).`,
          cause: error,
        });
      } finally {
        runtime.clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }

      const status = response.status;
      const responseHeaders = headersOf(response);
      const requestId = responseHeaders['x-request-id'] ?? null;
      const info: ResponseInfo = { status, requestId, etag: responseHeaders['etag'] ?? null, headers: responseHeaders };
      const text = accept === 'application/json' || status >= 300 ? new runtime.TextDecoder().decode(bytes) : '';
      if ((status >= 200 && status < 300) || (status === 304 && options.ifNoneMatch != null)) {
        log({ status, requestId });
        return { text, bytes, info };
      }
      // An app's access token revoked or expired early: one renewal, then the same request again.
      if (status === 401 && this.#tokens && !renewed) {
        renewed = true;
        log({ status, requestId, retryInMs: 0 });
        headers.authorization = `Bearer ${await this.#tokens.renew()}`;
        attempt--;
        continue;
      }
      const retryAfter = retryAfterDelay(responseHeaders['retry-after']);
      const retryable = status === 429 || status >= 500 || (status === 409 && retryAfter !== null);
      if (retryable && retriesLeft) {
        const delay = retryAfter === null ? backoffDelay(attempt) : retryAfterWithJitter(retryAfter);
        if (delay <= RETRY_AFTER_LIMIT_MS) {
          log({ status, requestId, retryInMs: Math.round(delay) });
          await sleep(delay, signal);
          continue;
        }
      }
      log({ status, requestId });
      throw errorFor({ status, ...parseError(text, status, responseHeaders), requestId, headers: responseHeaders });
    }
  }
}

function parseError(
  text: string,
  status: number,
  headers: Record<string, string>,
): { code: BmsErrorCode; message: string; details: ErrorDetail[]; body?: string } {
  try {
    const { error } = JSON.parse(text) as { error: { code: ErrorCode; message: string; details?: ErrorDetail[] } };
    if (typeof error?.code === 'string' && typeof error.message === 'string')
      return { code: error.code, message: error.message, details: error.details ?? [] };
  } catch {
    // Not the API's envelope: described below.
  }
  const message =
    status === 304
      ? 'BMS answered 304 Not Modified: pass ifNoneMatch only where the method documents it (getPdf).'
      : status >= 300 && status < 400
        ? `BMS answered ${status}, a redirect to ${headers['location'] ?? 'nowhere'}, which the SDK does not follow: check baseUrl.`
        : `BMS answered ${status} with ${describeBody(headers, text)}.`;
  return { code: `HTTP_${status}` as const, message, details: [], body: text.slice(0, BODY_KEPT) };
}
