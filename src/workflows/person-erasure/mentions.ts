import type { Person } from '../../resources/persons/schema.ts';

/** Whether a text names the person being erased. */
export type Mentions = (text: string) => boolean;

/** A word of one letter is an initial: it names no one on its own. */
const MIN_NAME_WORD = 2;
/** Fewer digits are not a phone number: a price, a year, a count. */
const MIN_PHONE_DIGITS = 7;
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
/** A run that reads as a phone number: digits with the spaces, dots, dashes and brackets between them. */
const PHONE_LIKE = /\+?\d[\d\s().-]{5,}\d/g;

interface Word {
  /** Lowercased, without accents: how words are compared. */
  folded: string;
  /** Starts with a capital letter, or with a letter of a script without case: written as a name. */
  proper: boolean;
}

function fold(word: string): string {
  return word.toLowerCase().normalize('NFKD').replace(/\p{M}/gu, '');
}

function wordsOf(text: string): Word[] {
  return [...text.matchAll(WORD)].map(([word]) => {
    const first = word.charAt(0);
    return { folded: fold(word), proper: first !== first.toLowerCase() || first === first.toUpperCase() };
  });
}

/** The words of `text`, folded, between spaces: a phrase is found in it as ` its words `. */
function phraseOf(words: Word[]): string {
  return ` ${words.map((word) => word.folded).join(' ')} `;
}

/** A profile URL as copy would write it: without its scheme, `www.` and closing slash. */
function bareUrl(url: string): string {
  return url
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/^www\./, '')
    .replace(/\/+$/, '');
}

function digitsOf(text: string): string {
  return text.replace(/\D/g, '');
}

/** Whether `text` holds a phone number that is `phone` (E.164 digits), however it is written. */
function holdsPhone(text: string, phone: string): boolean {
  return [...text.matchAll(PHONE_LIKE)].some(([run]) => {
    const digits = digitsOf(run);
    const [shorter, longer] = digits.length < phone.length ? [digits, phone] : [phone, digits];
    return shorter.length >= MIN_PHONE_DIGITS && longer.endsWith(shorter);
  });
}

/**
 * What of the person's record copy could hold, and how each is found: their full name (and their
 * slug's words) as a run of words in any case and with or without accents ("Jane Doe", "jane-doe",
 * "JANE DOE"); each word of their name of two letters or more written as a name, with a capital
 * ("Jane", "Doe's", not "will" for a Will); their email, also URL-encoded; their profile URL without
 * its scheme; their phone number in any writing of its last seven digits or more.
 */
export function mentionsOf(
  person: Pick<Person, 'name' | 'slug' | 'email' | 'phoneNumber' | 'linkedinProfileUrl'>,
): Mentions {
  const nameWords = wordsOf(person.name);
  // The slug keeps the name the person was created with, without the number that set it apart.
  const phrases = [nameWords, wordsOf(person.slug.replace(/-\d+$/, ''))]
    .filter((words) => words.length > 1)
    .map(phraseOf);
  const names = new Set(
    nameWords.map((word) => word.folded).filter((word) => [...word].length >= MIN_NAME_WORD),
  );
  const email = person.email?.toLowerCase();
  const literals = [
    ...(email ? [email, encodeURIComponent(email).toLowerCase()] : []),
    ...(person.linkedinProfileUrl ? [bareUrl(person.linkedinProfileUrl)] : []),
  ].filter(Boolean);
  const phone = person.phoneNumber ? digitsOf(person.phoneNumber) : undefined;
  return (text) => {
    const lower = text.toLowerCase();
    if (literals.some((literal) => lower.includes(literal))) return true;
    const words = wordsOf(text);
    if (words.some((word) => word.proper && names.has(word.folded))) return true;
    const phrase = phraseOf(words);
    if (phrases.some((name) => phrase.includes(name))) return true;
    return phone !== undefined && holdsPhone(text, phone);
  };
}
