import slugify from '@sindresorhus/slugify';

/**
 * A slug of `text`: lowercase ASCII words joined by "-" (accents transliterated), at most
 * `maxLength` characters, never ending in "-"; empty when the text has no letter or digit.
 */
export function slugOf(text: string, maxLength: number): string {
  return slugify(text).slice(0, maxLength).replace(/-+$/, '');
}
