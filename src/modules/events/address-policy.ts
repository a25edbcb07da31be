// Which addresses a webhook may be delivered to. A URL's host is resolved at creation, at update and
// again at every delivery (a name can be pointed elsewhere later), and the connection is made to the
// address that was checked, so a second lookup cannot swap it. Refused unless WEBHOOK_ALLOW_PRIVATE: every
// range of the IANA IPv4 and IPv6 special-purpose registries, as ipaddr.js (maintained, used by Fastify's
// proxy-addr) names them, and every IPv6 address outside global unicast 2000::/3, which refuses the forms
// that embed an IPv4 address (IPv4-compatible ::/96, mapped ::ffff:0:0/96, NAT64 64:ff9b::/96 and
// 64:ff9b:1::/48) with them; 6to4 2002::/16 and Teredo 2001::/32 are special-purpose ranges of their own.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/** Whether an IP address is one a webhook must not reach. */
export function isRefusedAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  const parsed = ipaddr.parse(address);
  if (parsed.range() !== 'unicast') return true;
  return parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST);
}

export interface ResolvedTarget {
  address: string;
  family: 4 | 6;
}

export class RefusedAddressError extends Error {}
/** The host resolved, but not only to public addresses: WEBHOOK_ALLOW_PRIVATE would allow it. */
export class NotPublicAddressError extends RefusedAddressError {}

/**
 * The address to connect to for `hostname`: its first resolved address, when none of them is refused
 * (or private addresses are allowed). Throws RefusedAddressError naming the reason, never the address a
 * name resolved to (which would let a caller map the server's network).
 */
/** How a host name is resolved: the system's resolver (every address, in its order); a test may pass its own. */
export type HostLookup = (host: string) => Promise<Array<{ address: string; family: number }>>;
const systemLookup: HostLookup = (host) => lookup(host, { all: true, verbatim: true });

export async function resolveTarget(
  hostname: string,
  allowPrivate: boolean,
  resolve: HostLookup = systemLookup,
): Promise<ResolvedTarget> {
  const host = hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host);
  } catch (error) {
    throw new RefusedAddressError(
      `the host ${host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})`,
    );
  }
  if (addresses.length === 0) throw new RefusedAddressError(`the host ${host} has no address`);
  if (!allowPrivate && addresses.some((entry) => isRefusedAddress(entry.address)))
    throw new NotPublicAddressError(
      isIP(host)
        ? `the address ${host} is not a public address (private, loopback, link-local, reserved or another special-purpose range)`
        : `the host ${host} does not resolve only to public addresses`,
    );
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
