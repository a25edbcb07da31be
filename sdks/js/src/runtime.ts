// The few globals the SDK uses, typed here rather than through the DOM or @types/node libraries, so that
// its declarations compile in any TypeScript project (`"lib": ["ES2022"]`, no `types`). Node 20+, Deno,
// Bun, browsers and workers all have them.

/** An `AbortSignal`, as far as the SDK reads it. */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** The `init` the SDK passes to `fetch`; every field is one the standard `RequestInit` has. */
export interface FetchInit {
  method?: string;
  headers?: Record<string, string>;
  /**
   * JSON or text as a string; an upload's multipart body is a Blob or a ReadableStream (with `duplex: 'half'`).
   * Typed loosely, as `signal` is, so that the standard `fetch` is accepted as it is.
   */
  // biome-ignore lint/suspicious/noExplicitAny: a string, a Blob or a ReadableStream, whichever fetch takes
  body?: any;
  duplex?: 'half';
  /** An AbortSignal (typed loosely so that the standard `fetch` is accepted as it is). */
  // biome-ignore lint/suspicious/noExplicitAny: any AbortSignal-like object, so that the standard fetch's is accepted as it is
  signal?: any;
  /** `manual` (a redirect is answered as it is, never followed); `error` for a streamed upload (see transport). */
  redirect?: 'manual' | 'error';
}

/** What the SDK reads of a `fetch` response. */
export interface FetchResponse {
  status: number;
  headers: { forEach(callback: (value: string, name: string) => void): void };
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
  /** The body as a ReadableStream, for a download streamed to a file. */
  body?: unknown;
}

/** The subset of `fetch` the SDK uses; pass your own (a proxy, a test double) as `fetch`. */
export type FetchFunction = (url: string, init: FetchInit) => Promise<FetchResponse>;

interface Runtime {
  fetch?: FetchFunction;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  AbortController: new () => { readonly signal: AbortSignalLike; abort(reason?: unknown): void };
  crypto: {
    randomUUID(): string;
    subtle: {
      importKey(
        format: 'raw',
        key: Uint8Array,
        algorithm: { name: 'HMAC'; hash: 'SHA-256' },
        extractable: false,
        usages: ['verify'],
      ): Promise<unknown>;
      verify(algorithm: 'HMAC', key: unknown, signature: Uint8Array, data: Uint8Array): Promise<boolean>;
    };
  };
  TextEncoder: new () => { encode(text: string): Uint8Array };
  Blob?: new (parts: unknown[]) => { readonly size: number };
  ReadableStream?: new (source: {
    pull(controller: { enqueue(chunk: Uint8Array): void; close(): void }): Promise<void>;
    cancel(): Promise<void>;
  }) => unknown;
  TextDecoder: new () => { decode(bytes: Uint8Array): string };
  atob(text: string): string;
  btoa(text: string): string;
  URLSearchParams: new () => { set(name: string, value: string): void; toString(): string };
  URL: new (text: string) => { protocol: string };
  DOMException: new (message: string, name: string) => Error;
  console: { error(...values: unknown[]): void };
  process?: { env: Record<string, string | undefined> };
}

export const runtime = globalThis as unknown as Runtime;

/** An environment variable where there is an environment (Node, Deno, Bun), else undefined. */
export function environment(name: string): string | undefined {
  const value = runtime.process?.env[name];
  return value === undefined || value === '' ? undefined : value;
}
