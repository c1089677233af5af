const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const IPV4 = /^\d+(?:\.\d+){3}$/;

/**
 * The canonical form of an account domain: lowercased, without scheme, credentials, port, path or
 * a leading "www.", internationalised names in punycode. Undefined when the input is not a
 * domain name with at least one dot.
 */
export function canonicalDomain(input: string): string | undefined {
  const text = input.trim();
  if (!text) return undefined;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let host: string;
  try {
    host = new URL(withScheme).hostname;
  } catch {
    return undefined;
  }
  host = host.replace(/\.$/, '').replace(/^www\./, '');
  if (!host.includes('.') || IPV4.test(host) || host.length > 253) return undefined;
  return host.split('.').every((label) => LABEL.test(label)) ? host : undefined;
}
