// One webhook attempt over HTTP(S): the host resolved and checked now, the connection pinned to the
// checked address (TLS still verifies the name), one time limit for the whole attempt, redirects never
// followed, and at most 64 KB of the answer read.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { RefusedAddressError, resolveTarget, type HostLookup } from './address-policy.js';

const MAX_RESPONSE_BYTES = 64 * 1024;
/** Connections are kept for the next delivery to the same origin: a new TCP (and TLS) handshake per event would cost both sides more than the event. */
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 30_000 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64, timeout: 30_000 }),
};
const KEPT_RESPONSE_BYTES = 1024;

export interface AttemptResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  /** The first 1 KB of the answer. */
  body: string | null;
  durationMs: number;
  /** From a 429 or 503's Retry-After, in milliseconds. */
  retryAfterMs: number | null;
}

function retryAfterMs(header: string | undefined, now: number): number | null {
  if (header === undefined) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * A receiver's answer as text both databases store: NUL (which PostgreSQL's text refuses, and which rolled
 * back a whole batch of outcomes, issue 34.7) and every other unstorable character become U+FFFD.
 */
export function storableSnippet(text: string): string {
  return text.replace(/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

export async function attemptWebhook(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; allowPrivate: boolean; lookup?: HostLookup },
): Promise<AttemptResult> {
  const started = performance.now();
  const finish = (result: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({
    ...result,
    durationMs: Math.round(performance.now() - started),
  });
  const url = new URL(target);
  // The lookup is part of the attempt's time limit (issue 34.7): a name server that never answers must not
  // hold a delivery slot beyond it.
  const timedOut = () =>
    finish({
      ok: false,
      status: null,
      error: `no answer within ${options.timeoutMs} ms`,
      body: null,
      retryAfterMs: null,
    });
  let address: Awaited<ReturnType<typeof resolveTarget>>;
  let lookupTimer: NodeJS.Timeout | undefined;
  try {
    const resolved = await Promise.race([
      resolveTarget(url.hostname, options.allowPrivate, options.lookup),
      new Promise<undefined>((resolve) => {
        lookupTimer = setTimeout(() => resolve(undefined), options.timeoutMs);
      }),
    ]);
    if (resolved === undefined) return timedOut();
    address = resolved;
  } catch (error) {
    if (error instanceof RefusedAddressError)
      return finish({ ok: false, status: null, error: `refused: ${error.message}`, body: null, retryAfterMs: null });
    throw error;
  } finally {
    clearTimeout(lookupTimer);
  }
  const remainingMs = Math.max(1, options.timeoutMs - (performance.now() - started));
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all)
      (callback as unknown as (error: null, addresses: Array<{ address: string; family: number }>) => void)(null, [
        address,
      ]);
    else callback(null, address.address, address.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const settle = (result: Omit<AttemptResult, 'durationMs'>, reuse = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // A connection whose answer was read to its end goes back to the pool; any other is closed.
      if (!reuse) request.destroy();
      resolve(finish(result));
    };
    const agent = url.protocol === 'https:' ? agents['https:'] : agents['http:'];
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        lookup: pinned,
        agent,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        const done = (complete: boolean) => {
          const text = storableSnippet(Buffer.concat(chunks).subarray(0, KEPT_RESPONSE_BYTES).toString('utf8'));
          if (status >= 200 && status < 300)
            return settle({ ok: true, status, error: null, body: text, retryAfterMs: null }, complete);
          const location = response.headers.location;
          const error =
            status >= 300 && status < 400
              ? `the endpoint answered ${status} (a redirect${location ? ` to ${location}` : ''}, not followed)`
              : `the endpoint answered ${status}`;
          const wait =
            status === 429 || status === 503 ? retryAfterMs(response.headers['retry-after'], Date.now()) : null;
          return settle({ ok: false, status, error, body: text, retryAfterMs: wait }, complete);
        };
        response.on('data', (chunk: Buffer) => {
          if (size < MAX_RESPONSE_BYTES) chunks.push(chunk);
          size += chunk.length;
          if (size >= MAX_RESPONSE_BYTES) done(false);
        });
        response.on('end', () => done(true));
        response.on('error', (error) =>
          settle({
            ok: false,
            status,
            error: `the answer broke off: ${error.message}`,
            body: null,
            retryAfterMs: null,
          }),
        );
      },
    );
    const timer = setTimeout(
      () =>
        settle({
          ok: false,
          status: null,
          error: `no answer within ${options.timeoutMs} ms`,
          body: null,
          retryAfterMs: null,
        }),
      remainingMs,
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      settle({
        ok: false,
        status: null,
        error: `connection failed: ${error.code ?? error.message}`,
        body: null,
        retryAfterMs: null,
      }),
    );
    request.end(body);
  });
}
