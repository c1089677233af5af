import ipaddr from 'ipaddr.js';

/**
 * The client a request's address stands for, as every per-address limit counts it: an IPv4
 * address, or the /64 network of an IPv6 one, since a home or an office gets a /64 at least and may
 * send from any address of it (so rotating addresses within it buys no fresh budget).
 */
export function clientKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/64`).toString()}/64`;
}
