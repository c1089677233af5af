import slugify from '@sindresorhus/slugify';

/**
 * Text that slugify would only lowercase and join with "-": ASCII letters, digits and spaces, each
 * capital starting its word (a capital after a letter or digit is split off by slugify's
 * decamelizing). Most names are such, and slugify's transliteration costs a person's create more
 * than the rest of its slug.
 */
const PLAIN_WORDS = /^(?:[a-z0-9 ]|(?<![^ ])[A-Z])*$/;

/**
 * A slug of `text`: lowercase ASCII words joined by "-" (accents transliterated), at most
 * `maxLength` characters, never ending in "-"; empty when the text has no letter or digit.
 */
export function slugOf(text: string, maxLength: number): string {
  const slug = PLAIN_WORDS.test(text)
    ? text.toLowerCase().split(' ').filter(Boolean).join('-')
    : slugify(text);
  return slug.slice(0, maxLength).replace(/-+$/, '');
}
