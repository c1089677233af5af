/**
 * The hostname a Host header, or a TLS proxy's `?domain=`, names, spelled as tenant domains are
 * stored: lowercase, with no port and no trailing dot (`GO.Acme.com.:443` is `go.acme.com`). Routing
 * a page by its Host and the public domain check both read a name through this one function, so
 * that they agree on every spelling: a name the check answers for is a name that is served, and the
 * reverse.
 */
export function hostnameOf(host: string): string {
  return host.replace(/:\d+$/, '').replace(/\.$/, '').toLowerCase();
}
