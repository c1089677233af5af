import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Webhook receivers must be public hosts: no loopback, private, link-local, multicast or otherwise
 * reserved address, so that a subscription cannot make Tailor call into its own network.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  // ::/96 (IPv4-compatible, deprecated) embeds an IPv4 address that ipaddr.js does not classify.
  if (
    parsed.kind() === 'ipv6' &&
    parsed
      .toByteArray()
      .slice(0, 12)
      .every((byte) => byte === 0)
  )
    return false;
  return parsed.range() === 'unicast';
}

export class PrivateAddressError extends Error {}

/** Said with every refusal, so that someone trying Tailor on one machine learns the way out. */
const LOCAL_TESTING =
  'a server run for local testing takes receivers on private addresses with TAILOR_WEBHOOK_ALLOW_PRIVATE=true';

function assertPublic(host: string, addresses: string[]): void {
  const blocked = addresses.find((address) => !isPublicAddress(address));
  if (blocked)
    throw new PrivateAddressError(
      `${host} resolves to ${blocked}, which is not a public address (${LOCAL_TESTING})`,
    );
}

function bareHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '');
}

/** Resolves the URL's host and checks every address it has; an IP literal is checked as it is. */
export async function assertPublicUrl(url: URL): Promise<void> {
  const host = bareHost(url.hostname);
  if (net.isIP(host)) return assertPublic(host, [host]);
  let records: dns.LookupAddress[];
  try {
    records = await dns.promises.lookup(host, { all: true });
  } catch {
    throw new PrivateAddressError(`${host} does not resolve`);
  }
  assertPublic(
    host,
    records.map((record) => record.address),
  );
}

/**
 * A `lookup` for http.request that refuses non-public answers: the check happens on the addresses
 * actually connected to, so a name that changes its answer after the subscription was saved
 * (DNS rebinding) is still refused.
 */
export const publicOnlyLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, records) => {
    if (error) return callback(error, '', 0);
    try {
      assertPublic(
        hostname,
        records.map((record) => record.address),
      );
    } catch (refusal) {
      return callback(refusal as NodeJS.ErrnoException, '', 0);
    }
    if (options.all) return (callback as unknown as (e: null, r: dns.LookupAddress[]) => void)(null, records);
    const [first] = records;
    callback(null, first?.address ?? '', first?.family ?? 4);
  });
};
