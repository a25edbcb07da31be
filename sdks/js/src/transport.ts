// HTTP for the SDK: authentication, JSON, timeouts, the error classes, and retries with exponential
// backoff and jitter. Retried are connection failures, 429 and 5xx, waiting as long as `Retry-After`
// says when the server says. Every request the SDK sends is safe to repeat: GET, PUT and DELETE are
// idempotent, and every POST carries an Idempotency-Key (one per call, the same on each retry), so the
// server replays the first result instead of creating twice.
import { ApiConnectionError, errorFor, type ErrorDetail } from './errors.js';
import { Page, PagePromise } from './pagination.js';

export const VERSION = '0.1.0';

/** The subset of `fetch` the SDK uses; pass your own (a proxy, a test double) as `fetch`. */
export type FetchFunction = (url: string, init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal }) => Promise<{ status: number; ok: boolean; headers: { forEach(callback: (value: string, name: string) => void): void }; text(): Promise<string> }>;

export interface BmsClientOptions {
  /** A secret key, `bms_` followed by 40 characters. */
  apiKey: string;
  /** Where the API is served; default `http://localhost:3000`. */
  baseUrl?: string;
  /** Per attempt, in milliseconds; default 30,000. */
  timeout?: number;
  /** Retries after the first attempt; default 2. */
  maxRetries?: number;
  fetch?: FetchFunction;
}

export interface RequestOptions {
  /** Sent as `Idempotency-Key` on a POST; by default a new UUID per call, kept across its retries. */
  idempotencyKey?: string;
  /** Sent as `If-Match` on an update or delete: the `etag` of the version you read (else 412). */
  ifMatch?: string | null;
  timeout?: number;
  maxRetries?: number;
  signal?: AbortSignal;
}

/** What came with a response besides its data. */
export interface ResponseInfo {
  status: number;
  requestId: string | null;
  /** The object's ETag, to pass as `ifMatch`. */
  etag: string | null;
  headers: Record<string, string>;
}

/** Objects returned by create, get, update, delete and send carry `lastResponse` (not enumerable). */
export type WithResponse<T> = T & { readonly lastResponse: ResponseInfo };

type Query = Record<string, string | number | boolean | null | undefined>;

const RETRY_BASE_MS = 500;
const RETRY_CAP_MS = 8_000;
/** A longer Retry-After is not waited for: the error is raised at once. */
const RETRY_AFTER_LIMIT_MS = 60_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Exponential backoff with jitter: 250–500 ms, then 500–1000 ms, ..., capped at 4–8 s. */
export function backoffDelay(attempt: number): number {
  const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** Retry-After in milliseconds (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterDelay(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

export class Transport {
  private readonly apiKey: string;
  private readonly baseUrl: string;
  private readonly timeout: number;
  private readonly maxRetries: number;
  private readonly fetch: FetchFunction;

  constructor(options: BmsClientOptions) {
    if (typeof options?.apiKey !== 'string' || options.apiKey === '') throw new TypeError('BmsClient needs an apiKey.');
    this.apiKey = options.apiKey;
    this.baseUrl = (options.baseUrl ?? 'http://localhost:3000').replace(/\/+$/, '');
    this.timeout = options.timeout ?? 30_000;
    this.maxRetries = options.maxRetries ?? 2;
    this.fetch = options.fetch ?? (globalThis.fetch as unknown as FetchFunction);
  }

  async request<T>(method: string, path: string, parts: { body?: unknown; query?: Query }, options: RequestOptions = {}): Promise<WithResponse<T>> {
    const { json, info } = await this.send(method, path, parts, options);
    const data = (json as { data: T }).data;
    Object.defineProperty(data, 'lastResponse', { value: info, enumerable: false });
    return data as WithResponse<T>;
  }

  list<T>(path: string, query: Query, options: RequestOptions = {}): PagePromise<T> {
    const load = async (cursor?: string): Promise<Page<T>> => {
      const { json, info } = await this.send('GET', path, { query: cursor === undefined ? query : { ...query, cursor } }, options);
      const { data, meta } = json as { data: T[]; meta: { pagination: { has_more: boolean; next_cursor: string | null } } };
      return new Page(data, meta.pagination.has_more, meta.pagination.next_cursor, info.requestId, load);
    };
    return new PagePromise(() => load());
  }

  private url(path: string, query: Query = {}): string {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null) search.set(name, String(value));
    const text = search.toString();
    return `${this.baseUrl}${path}${text ? `?${text}` : ''}`;
  }

  private async send(method: string, path: string, parts: { body?: unknown; query?: Query }, options: RequestOptions): Promise<{ json: unknown; info: ResponseInfo }> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.apiKey}`, accept: 'application/json', 'user-agent': `bms-sdk-js/${VERSION}` };
    if (parts.body !== undefined) headers['content-type'] = 'application/json';
    if (method === 'POST') headers['idempotency-key'] = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    if (options.ifMatch != null) headers['if-match'] = options.ifMatch;
    const url = this.url(path, parts.query);
    const body = parts.body === undefined ? undefined : JSON.stringify(parts.body);
    const maxRetries = options.maxRetries ?? this.maxRetries;
    const timeout = options.timeout ?? this.timeout;

    for (let attempt = 0; ; attempt++) {
      const retriesLeft = attempt < maxRetries;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), timeout);
      const onAbort = (): void => controller.abort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      let status: number;
      let text: string;
      let responseHeaders: Record<string, string>;
      try {
        const response = await this.fetch(url, { method, headers, ...(body === undefined ? {} : { body }), signal: controller.signal });
        status = response.status;
        responseHeaders = {};
        response.headers.forEach((value, name) => (responseHeaders[name.toLowerCase()] = value));
        text = await response.text();
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason ?? error;
        if (retriesLeft) {
          await sleep(backoffDelay(attempt));
          continue;
        }
        const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
        const reason = controller.signal.aborted ? `timed out after ${timeout} ms` : cause;
        throw new ApiConnectionError({ status: null, code: 'CONNECTION_ERROR', message: `Could not reach BMS at ${this.baseUrl} (${reason}).` });
      } finally {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
      }

      const requestId = responseHeaders['x-request-id'] ?? null;
      if (status >= 200 && status < 300) {
        return { json: JSON.parse(text), info: { status, requestId, etag: responseHeaders['etag'] ?? null, headers: responseHeaders } };
      }
      if ((status === 429 || status >= 500) && retriesLeft) {
        const delay = retryAfterDelay(responseHeaders['retry-after']) ?? backoffDelay(attempt);
        if (delay <= RETRY_AFTER_LIMIT_MS) {
          await sleep(delay);
          continue;
        }
      }
      throw errorFor({ status, ...parseError(text, status), requestId, headers: responseHeaders });
    }
  }
}

function parseError(text: string, status: number): { code: string; message: string; details: ErrorDetail[] } {
  try {
    const { error } = JSON.parse(text) as { error: { code: string; message: string; details?: ErrorDetail[] } };
    return { code: error.code, message: error.message, details: error.details ?? [] };
  } catch {
    return { code: `HTTP_${status}`, message: text.slice(0, 500) || `HTTP ${status}`, details: [] };
  }
}
