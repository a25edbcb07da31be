// Key secrets: `bms_` + 40 base62 characters (~238 bits), shown once; only a SHA-256 (or HMAC-SHA256 with a
// pepper) is stored, with a short prefix for display.
import { createHmac, hash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 40;
export const KEY_PATTERN = /^bms_[0-9A-Za-z]{32,128}$/;
const PREFIX_LENGTH = 12;

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

export function hashApiKey(key: string, pepper: string | undefined): string {
  return pepper ? createHmac('sha256', pepper).update(key).digest('hex') : hash('sha256', key, 'hex');
}

/** A new secret, its display prefix and its stored hash. */
export function newSecret(pepper: string | undefined): { secret: string; prefix: string; hash: string } {
  const secret = `bms_${randomBase62(SECRET_LENGTH)}`;
  return { secret, prefix: secret.slice(0, PREFIX_LENGTH), hash: hashApiKey(secret, pepper) };
}
