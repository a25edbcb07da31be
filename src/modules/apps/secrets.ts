// The apps' opaque secrets (docs/api-contract.md §25): a prefix that says what each is, then 40 base62
// characters (~238 bits); only a hash is stored, made as an API key's (SHA-256, or HMAC-SHA256 with the pepper).
import { randomBytes } from 'node:crypto';
import { hashApiKey } from '../api-keys/index.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 40;

export const SECRET_PREFIXES = {
  clientSecret: 'bmscs_',
  accessToken: 'bmsat_',
  refreshToken: 'bmsrt_',
  installLink: 'bmsil_',
  consent: 'bmscc_',
  code: 'bmsac_',
} as const;

/** Uniformly random base62 characters (rejection sampling keeps every character equally likely). */
function randomBase62(length: number): string {
  let output = '';
  while (output.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && output.length < length) output += ALPHABET[byte % 62];
    }
  }
  return output;
}

export function hashSecret(secret: string, pepper: string | undefined): string {
  return hashApiKey(secret, pepper);
}

/** A new secret of a kind and its stored hash. */
export function newSecret(
  kind: keyof typeof SECRET_PREFIXES,
  pepper: string | undefined,
): { secret: string; hash: string } {
  const secret = `${SECRET_PREFIXES[kind]}${randomBase62(SECRET_LENGTH)}`;
  return { secret, hash: hashSecret(secret, pepper) };
}

/** Whether a presented value has a kind's shape (anything else is refused before a lookup). */
export function looksLike(kind: keyof typeof SECRET_PREFIXES, value: string): boolean {
  return (
    value.length === SECRET_PREFIXES[kind].length + SECRET_LENGTH &&
    value.startsWith(SECRET_PREFIXES[kind]) &&
    /^[0-9A-Za-z]+$/.test(value.slice(SECRET_PREFIXES[kind].length))
  );
}

/** A webhook signing secret, `whsec_` + base64 of 32 random bytes (Standard Webhooks, §9). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
