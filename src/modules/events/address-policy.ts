// Which addresses a webhook may be delivered to. A URL's host is resolved at creation, at update and
// again at every delivery (a name can be pointed elsewhere later), and the connection is made to the
// address that was checked, so a second lookup cannot swap it. Refused unless WEBHOOK_ALLOW_PRIVATE:
// loopback, private, shared (CGNAT), link-local (which holds cloud metadata at 169.254.169.254),
// unspecified, multicast, reserved and documentation ranges, in IPv4 and IPv6 (and IPv4 mapped into IPv6).
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const REFUSED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  REFUSED.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  REFUSED.addSubnet(network, prefix, 'ipv6');

/** Whether an IP address is one a webhook must not reach. */
export function isRefusedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return REFUSED.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return REFUSED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export interface ResolvedTarget {
  address: string;
  family: 4 | 6;
}

export class RefusedAddressError extends Error {}

/**
 * The address to connect to for `hostname`: its first resolved address, when none of them is refused
 * (or private addresses are allowed). Throws RefusedAddressError naming the reason.
 */
export async function resolveTarget(hostname: string, allowPrivate: boolean): Promise<ResolvedTarget> {
  const host = hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = isIP(host)
      ? [{ address: host, family: isIP(host) }]
      : await lookup(host, { all: true, verbatim: true });
  } catch (error) {
    throw new RefusedAddressError(
      `the host ${host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})`,
    );
  }
  if (addresses.length === 0) throw new RefusedAddressError(`the host ${host} has no address`);
  const refused = addresses.find((entry) => isRefusedAddress(entry.address));
  if (refused && !allowPrivate)
    throw new RefusedAddressError(
      `the host ${host} resolves to ${refused.address}, a private, loopback, link-local or reserved address`,
    );
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
