/** Links a page shows must not run script: http(s), mailto and tel URLs, paths and fragments only. */
export const SAFE_URL_PATTERN = '^(|https?://[^\\s]+|mailto:[^\\s]+|tel:[^\\s]+|/[^\\s]*|#[^\\s]*)$';

const SAFE_URL = new RegExp(SAFE_URL_PATTERN);

/** Whether a page may link to `url`: a safe address, and not an empty one. */
export function isSafeLink(url: string): boolean {
  return url !== '' && SAFE_URL.test(url);
}
