// Verifying the webhooks BMS sends (Standard Webhooks): the signature is an HMAC-SHA256 of
// "<webhook-id>.<webhook-timestamp>.<body>" keyed by the endpoint's secret, and the timestamp must be
// within 5 minutes. Works wherever Web Crypto does (Node 20+, browsers, workers); the comparison is
// crypto.subtle.verify's, which does not leak timing.
import type { Event } from './generated.js';
import { runtime } from './runtime.js';

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyOptions {
  /** How far the timestamp may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** "Now" in Unix seconds, for tests. */
  now?: number;
}

/** A `Headers` object, or a plain object of headers (Node's `request.headers`). */
export type HeaderSource = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof headers.get === 'function')
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

function fromBase64(text: string) {
  const binary = runtime.atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/**
 * Checks a delivery and returns its event. `payload` is the raw body exactly as received (not parsed
 * and re-serialized); `headers` the request's headers; `secret` the endpoint's `whsec_…` secret. Throws
 * WebhookVerificationError when a header is missing, the timestamp is too old or too new, or no
 * signature matches. De-duplicate on `event.id` (the webhook-id): a delivery may come more than once.
 */
export async function verify(
  payload: string | Uint8Array,
  headers: HeaderSource,
  secret: string,
  options: VerifyOptions = {},
): Promise<Event> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature header.');
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('The webhook-timestamp header is not a Unix time.');
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - seconds) > (options.toleranceSeconds ?? 300))
    throw new WebhookVerificationError('The webhook-timestamp is too far from now: refusing a possible replay.');
  if (typeof payload !== 'string' && !(payload instanceof Uint8Array))
    throw new TypeError(
      'webhooks.verify needs the raw body as received (a string, a Buffer or a Uint8Array), not a parsed object: the signature covers the exact bytes. In Express, use express.raw({ type: "application/json" }) on this route.',
    );
  let secretBytes: Uint8Array;
  try {
    secretBytes = fromBase64(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  } catch {
    throw new WebhookVerificationError('The secret is not a whsec_ secret (its part after whsec_ is not base64).');
  }
  const body = typeof payload === 'string' ? payload : new runtime.TextDecoder().decode(payload);
  const key = await runtime.crypto.subtle.importKey('raw', secretBytes, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'verify',
  ]);
  const signed = new runtime.TextEncoder().encode(`${id}.${timestamp}.${body}`);
  for (const entry of signatures.split(' ')) {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || !signature) continue;
    let bytes: ReturnType<typeof fromBase64>;
    try {
      bytes = fromBase64(signature);
    } catch {
      continue;
    }
    if (await runtime.crypto.subtle.verify('HMAC', key, bytes, signed)) return JSON.parse(body) as Event;
  }
  throw new WebhookVerificationError('No signature matches: the secret is wrong or the body was changed.');
}
