// allowed_cidrs (docs/api-contract.md §20): IPv4 and IPv6 networks, parsed and matched by ipaddr.js, a
// maintained library (it is what Node's proxy-addr uses), rather than by hand.
import ipaddr from 'ipaddr.js';
import { type ErrorDetail, fieldError, fieldProblems } from '../../core/errors.js';

export type Network = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** One CIDR (or a bare address, as /32 or /128) in its normal form, the network address; undefined if invalid. */
export function normalizeCidr(text: string): string | undefined {
  try {
    if (!text.includes('/')) {
      const address = ipaddr.parse(text);
      return `${address.toString()}/${address.kind() === 'ipv4' ? 32 : 128}`;
    }
    const [address, length] = ipaddr.parseCIDR(text);
    const network =
      address.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(text) : ipaddr.IPv6.networkAddressFromCIDR(text);
    return `${network.toString()}/${length}`;
  } catch {
    return undefined;
  }
}

/** The normal forms of a list, or a 422 naming each entry that is not a network. */
export function normalizeCidrs(list: readonly string[], field = 'allowed_cidrs'): string[] {
  const normalized = list.map((text) => normalizeCidr(text));
  const bad = normalized.flatMap((value, index) => (value === undefined ? [index] : []));
  if (bad.length > 0)
    throw fieldError(
      `${field}[${bad[0]}]`,
      'must be an IPv4 or IPv6 network in CIDR notation, e.g. 203.0.113.0/24 or 2001:db8::/32',
    );
  return [...new Set(normalized as string[])];
}

/** A key body's own field check, for a body the schema refused too (issue 34.17): its networks. */
export async function keyFieldChecks(body: unknown): Promise<ErrorDetail[]> {
  const { allowed_cidrs: list } = body as { allowed_cidrs?: unknown };
  if (!Array.isArray(list) || !list.every((entry) => typeof entry === 'string')) return [];
  return fieldProblems(() => normalizeCidrs(list));
}

export function parseNetworks(list: readonly string[]): Network[] {
  return list.map((text) => ipaddr.parseCIDR(text) as Network);
}

/** Whether `ip` (as the server sees the caller; IPv4-mapped IPv6 counts as IPv4) lies in one of the networks. */
export function addressAllowed(networks: readonly Network[], ip: string): boolean {
  if (networks.length === 0) return true;
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.process(ip);
  } catch {
    return false;
  }
  return networks.some(([network, length]) => address.kind() === network.kind() && address.match(network, length));
}

/** Whether every network of `inner` lies inside one of `outer`'s (no escalation of where a key works). */
export function networksWithin(inner: readonly string[], outer: readonly string[]): boolean {
  if (outer.length === 0) return true;
  if (inner.length === 0) return false;
  const outerNetworks = parseNetworks(outer);
  return parseNetworks(inner).every(([address, length]) =>
    outerNetworks.some(
      ([network, outerLength]) =>
        address.kind() === network.kind() && length >= outerLength && address.match(network, outerLength),
    ),
  );
}
