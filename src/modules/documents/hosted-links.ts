// A sent quote's or invoice's link to its page on the client hub (docs/api-contract.md §12): a secret token
// of 256 random bits, and the URL made from it and PUBLIC_BASE_URL when the document is first sent. The
// URL is kept as issued, like the e-mail that carried it; a rotation issues a new one.
import { randomBytes } from 'node:crypto';

import type { HostedLinks } from '../../kernel/context.js';

export interface HostedLinkColumns {
  hosted_token: string;
  hosted_url: string;
}

/** 32 random bytes in base64url: 43 characters. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function isHostedToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

export function newHostedLink(links: HostedLinks): HostedLinkColumns {
  const token = randomBytes(32).toString('base64url');
  return { hosted_token: token, hosted_url: `${links.publicBaseUrl}/hub/${token}` };
}

/** Who a link is sent to: `<client id> <e-mail>`, the e-mail empty when the send names none (PUT status). */
function recipientOf(clientId: string, email: string | null | undefined): string {
  return `${clientId} ${(email ?? '').trim().toLowerCase()}`;
}

/** Whether a link sent to `stored` may go on to `next`: the same client, and the same address when both say one. */
function sameRecipient(stored: string, next: string): boolean {
  const [storedClient, storedEmail = ''] = stored.split(' ');
  const [nextClient, nextEmail = ''] = next.split(' ');
  return storedClient === nextClient && (storedEmail === '' || nextEmail === '' || storedEmail === nextEmail);
}

/**
 * The link a document being sent keeps: the one it has, while it goes to the client and address it went to
 * before; else a new one (on its first send, and when the client or their address changed: the previous
 * client's link must not open the document).
 */
export function hostedLinkOnSend(
  document: { hosted_token: string | null; hosted_url: string | null; hosted_recipient?: string | null | undefined },
  links: HostedLinks,
  clientId: string,
  email: string | null | undefined,
): HostedLinkColumns & { hosted_recipient: string } {
  const recipient = recipientOf(clientId, email);
  const stored = document.hosted_recipient ?? null;
  if (
    document.hosted_token === null ||
    document.hosted_url === null ||
    (stored !== null && !sameRecipient(stored, recipient))
  )
    return { ...newHostedLink(links), hosted_recipient: recipient };
  // Kept: what it records is the address it now goes to, or the one it went to when this send names none.
  const known = stored !== null && recipient.endsWith(' ') ? stored : recipient;
  return { hosted_token: document.hosted_token, hosted_url: document.hosted_url, hosted_recipient: known };
}

/**
 * A document moved to another client loses its link at once: the previous client's link must not
 * show the new client's document; the new link records its recipient when it is sent.
 */
export function hostedLinkOnClientChange(
  document: { client_id: string; hosted_token: string | null },
  clientId: string | undefined,
  links: HostedLinks,
): Partial<HostedLinkColumns & { hosted_recipient: null }> {
  if (clientId === undefined || clientId === document.client_id || document.hosted_token === null) return {};
  return { ...newHostedLink(links), hosted_recipient: null };
}

/** What the API shows: no link while the document is a draft (it has none to show the client yet). */
export function presentHostedUrl(row: { status: string; hosted_url: string | null }): string | null {
  return row.status === 'draft' ? null : row.hosted_url;
}
