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

/** Whether `words` hold `name`'s words in a row, each written as a name. */
function holdsName(words: Word[], name: string[]): boolean {
  return words.some((_, start) =>
    name.every((part, at) => {
      const word = words[start + at];
      return word?.proper === true && word.folded === part;
    }),
  );
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
 * What of the person's record copy could hold, and how each is found, with or without accents:
 * each word of their name of two letters or more written as a name, with a capital ("Jane", "Doe's",
 * "JANE"; not "will" for a Will Grant); their full name, and the one their slug keeps, as a run of
 * such words (an initial too: "J. Doe"); their slug as written ("jane-doe", in a link); their email
 * in any case, also URL-encoded; their profile URL without its scheme; their phone number in any
 * writing of its last seven digits or more.
 */
export function mentionsOf(
  person: Pick<Person, 'name' | 'slug' | 'email' | 'phoneNumber' | 'linkedinProfileUrl'>,
): Mentions {
  const nameWords = wordsOf(person.name).map((word) => word.folded);
  // The slug keeps the name the person was created with, without the number that set it apart.
  const slug = person.slug.replace(/-\d+$/, '');
  const fullNames = [nameWords, wordsOf(slug).map((word) => word.folded)].filter((name) => name.length > 1);
  const names = new Set(nameWords.filter((word) => [...word].length >= MIN_NAME_WORD));
  const email = person.email?.toLowerCase();
  const literals = [
    ...(email ? [email, encodeURIComponent(email).toLowerCase()] : []),
    ...(person.linkedinProfileUrl ? [bareUrl(person.linkedinProfileUrl)] : []),
    // A slug of one word is a name word ("will"), which lowercase copy uses as a word.
    ...(slug.includes('-') ? [slug] : []),
  ];
  const phone = person.phoneNumber ? digitsOf(person.phoneNumber) : undefined;
  return (text) => {
    const lower = text.toLowerCase();
    if (literals.some((literal) => lower.includes(literal))) return true;
    const words = wordsOf(text);
    if (words.some((word) => word.proper && names.has(word.folded))) return true;
    if (fullNames.some((name) => holdsName(words, name))) return true;
    return phone !== undefined && holdsPhone(text, phone);
  };
}
