/**
 * Links a page shows must not run script: http(s), mailto and tel URLs, paths and fragments only. A
 * path starts with one `/`, never two, nor `/` and a backslash (which browsers read as `/`): that
 * is a protocol-relative URL (`//evil.example/x`), another site in the guise of a path.
 */
export const SAFE_URL_PATTERN =
  '^(|https?://[^\\s]+|mailto:[^\\s]+|tel:[^\\s]+|/(?:[^/\\\\\\s][^\\s]*)?|#[^\\s]*)$';

const SAFE_URL = new RegExp(SAFE_URL_PATTERN);

/** Whether a page may link to `url`: a safe address, and not an empty one. */
export function isSafeLink(url: string): boolean {
  return url !== '' && SAFE_URL.test(url);
}
