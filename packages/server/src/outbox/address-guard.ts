import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Addresses a call to another system may not reach unless `CALLS_ALLOW_PRIVATE=true`: loopback,
 * private, shared, link-local, unspecified, multicast and reserved ranges (IPv4 and IPv6, and IPv4
 * inside IPv6), so that a spec cannot make the server probe its own network or a cloud's
 * metadata service (169.254.169.254).
 */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv6');
}

/** True when an IP address is one a call may not reach by default. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family !== 6) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1] as string, 'ipv4');
  return PRIVATE.check(address, 'ipv6');
}

/** A call refused before it was made: its host is, or resolves to, a private address. */
export class PrivateAddressError extends Error {
  constructor(host: string, address: string) {
    super(`${host} is a private address (${address}); set CALLS_ALLOW_PRIVATE=true to allow it`);
    this.name = 'PrivateAddressError';
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for `http.request` that refuses names resolving to a private address. It checks the
 * very addresses the connection then uses, so a name cannot resolve to a public address when
 * checked and a private one when connecting (DNS rebinding).
 */
export function guardedLookup(
  hostname: string,
  options: { all?: boolean; family?: number | string },
  callback: LookupCallback,
): void {
  dnsLookup(hostname, { ...options, all: true } as { all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find((a) => isPrivateAddress(a.address));
    if (refused) return callback(new PrivateAddressError(hostname, refused.address) as NodeJS.ErrnoException, []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(new Error(`${hostname} has no address`) as NodeJS.ErrnoException, []);
    callback(null, first.address, first.family);
  });
}
