import type { EnrichmentFailure, FormFields } from '../../resources/forms/schema.ts';
import type { PendingSubmission } from '../../resources/forms/service.ts';
import { emailDomain } from '../../shared/email.ts';

/** What a provider is asked about: one form submission (its `email` as docs/forms.md says). */
export type EnrichmentRequest = PendingSubmission;

/** Who submitted the form, as far as the provider can tell. */
export interface Submitter {
  /** The address the person is found or created by; it must be a valid address. */
  email: string;
  /** Used only when the person is created: an existing person keeps their name. */
  name: string;
}

export type EnrichmentResult =
  | { outcome: 'identified'; submitter: Submitter }
  | { outcome: 'rejected'; reason: Exclude<EnrichmentFailure, 'provider_error'> };

/**
 * Turns a form submission into a person to record it on, or rejects it. A provider that cannot
 * answer right now (a lookup service is down or rate-limits) throws: the job tries again later, and
 * after its last attempt the submission fails with `provider_error`. Tailor does the rest itself
 * (the person, the account link, the activity entry, the events), so a provider only decides who.
 */
export interface EnrichmentProvider {
  readonly name: string;
  enrich(request: EnrichmentRequest): Promise<EnrichmentResult>;
}

const MAX_NAME = 255;

function capitalized(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** "jane.doe+news@acme.com" → "Jane Doe"; the local part itself when it has no letters. */
export function nameFromAddress(email: string): string {
  const local = email.slice(0, email.lastIndexOf('@'));
  const words = (local.split('+')[0] ?? local)
    .split(/[._-]+/)
    .map((word) => word.replace(/\d+/g, ''))
    .filter((word) => /\p{L}/u.test(word));
  return (words.length > 0 ? words.map(capitalized).join(' ') : local).slice(0, MAX_NAME);
}

function givenName(fields: FormFields): string | undefined {
  const name = fields.name?.trim();
  return name ? name.slice(0, MAX_NAME) : undefined;
}

/**
 * The provider Tailor ships with, which needs no network: any valid address is the submitter's, a
 * free-mail one too (enrichment gives such a person no account); the name is the form's `name`
 * field, else made from the address.
 */
export const builtInEnrichmentProvider: EnrichmentProvider = {
  name: 'built-in',
  async enrich({ email, fields }) {
    const address = email?.trim();
    if (!address) return { outcome: 'rejected', reason: 'no_email' };
    if (!emailDomain(address)) return { outcome: 'rejected', reason: 'invalid_email' };
    return {
      outcome: 'identified',
      submitter: { email: address, name: givenName(fields) ?? nameFromAddress(address) },
    };
  },
};
