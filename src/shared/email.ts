import { fullFormats } from 'ajv-formats/dist/formats.js';
import { canonicalDomain } from './domain.ts';

/**
 * The one rule for email addresses. Request bodies check `format: "email"` with ajv-formats; code
 * that meets an address elsewhere (an enrichment provider's answer, a form field) asks the same
 * library's expression here, so that every address Tailor stores passes the same test.
 */

/** The longest address accepted anywhere (the SMTP path limit). */
export const MAX_EMAIL_LENGTH = 320;

const ADDRESS = fullFormats.email as RegExp;

export function isEmailAddress(value: string): boolean {
  return value.length <= MAX_EMAIL_LENGTH && ADDRESS.test(value);
}

/** The canonical domain of an address's host; undefined when it is not an address or its domain is no company domain. */
export function emailDomain(address: string): string | undefined {
  return isEmailAddress(address) ? canonicalDomain(address.slice(address.lastIndexOf('@') + 1)) : undefined;
}
