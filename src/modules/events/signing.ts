// Standard Webhooks signatures (standardwebhooks.com): the secret is `whsec_` + base64 of random bytes,
// and a message is signed as `v1,` + base64(HMAC-SHA256(secret bytes, "<id>.<timestamp>.<body>")).
// During a rotation both secrets sign, space-separated, so receivers holding either one verify.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new signing secret: 32 random bytes (256 bits). */
export function newWebhookSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

function secretBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** The `webhook-signature` header for one message, one `v1,` signature per secret. */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map(
      (secret) =>
        `v1,${createHmac('sha256', secretBytes(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`,
    )
    .join(' ');
}
