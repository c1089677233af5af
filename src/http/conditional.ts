/**
 * Content negotiation and conditional requests for bodies kept ready in both encodings (the
 * served pages): which to send, and whether the client already has it.
 */

/**
 * The last Accept-Encoding header read, and its answer: a browser (or a load generator) sends the
 * same header on every request, so that most views compare one string rather than parse it.
 */
let lastAcceptEncoding: string | undefined;
let lastAcceptsGzip = false;

/** Whether the Accept-Encoding header accepts gzip: named (or `*`) without `q=0`. */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  if (header !== lastAcceptEncoding) {
    lastAcceptsGzip = parseAcceptsGzip(header);
    lastAcceptEncoding = header;
  }
  return lastAcceptsGzip;
}

function parseAcceptsGzip(header: string): boolean {
  let any = false;
  for (const part of header.toLowerCase().split(',')) {
    const [coding = '', ...parameters] = part.split(';').map((piece) => piece.trim());
    const quality = parameters.find((parameter) => parameter.startsWith('q='));
    const accepted = quality === undefined || Number(quality.slice(2)) > 0;
    if (coding === 'gzip' || coding === 'x-gzip') return accepted;
    if (coding === '*') any = accepted;
  }
  return any;
}

/** Whether If-None-Match names `etag` (a quoted entity tag), by the weak comparison RFC 9110 asks for. */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}
