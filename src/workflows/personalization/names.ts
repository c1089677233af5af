import { domainToUnicode } from 'node:url';
import { getDomainWithoutSuffix } from 'tldts';

/** A domain that is one word this short is a company's initials: hp.com is HP. */
const INITIALS_UP_TO = 2;

function capitalized(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** A company name a reader would write, made from a domain: "navy-cobol.example" → "Navy Cobol". */
export function nameFromDomain(domain: string): string {
  const label = getDomainWithoutSuffix(domain) || domain.split('.')[0] || domain;
  const words = domainToUnicode(label)
    .split(/[-_.]+/)
    .filter(Boolean);
  const [only] = words;
  if (words.length === 1 && only && only.length <= INITIALS_UP_TO) return only.toUpperCase();
  return words.length > 0 ? words.map(capitalized).join(' ') : domain;
}

/** The company as page copy names it: the account's name, else a readable name made from its domain. */
export function companyName(account: { name: string | null; domain: string }): string {
  return account.name?.trim() || nameFromDomain(account.domain);
}

/** The name a page addresses a person by. */
export function firstName(fullName: string): string {
  return fullName.trim().split(/\s+/)[0] ?? fullName;
}
