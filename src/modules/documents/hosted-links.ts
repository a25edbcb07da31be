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

/** The link a document being sent keeps: the one it has, or a new one on its first send. */
export function hostedLinkOnSend(
  document: { hosted_token: string | null; hosted_url: string | null },
  links: HostedLinks,
): HostedLinkColumns {
  return document.hosted_token !== null && document.hosted_url !== null
    ? { hosted_token: document.hosted_token, hosted_url: document.hosted_url }
    : newHostedLink(links);
}

/** What the API shows: no link while the document is a draft (it has none to show the client yet). */
export function presentHostedUrl(row: { status: string; hosted_url: string | null }): string | null {
  return row.status === 'draft' ? null : row.hosted_url;
}
