/**
 * Words as the built-in personalizer compares them: lowercase, without the words every text has, and
 * stemmed, so that "alerts" meets "alert" and "accuracy" meets "accurate". Ranking (select) and guidance (what it rules out) read texts through the same terms.
 */

/** Words every text has: they say nothing of what it is about. */
const STOP_WORDS = new Set(
  `a about after again all also am an and any are as at be been before being both but by can could did do
  does doing don each for from further had has have having he her here hers him his how i if in into is
  isn it its itself just may me more most much must my no nor not now of off on once only or other our
  ours out over own per same she should so some such than that the their theirs them then there these
  they this those through to too under until up us very was we were what when where which while who
  whom why will with would you your yours dont doesnt didnt isnt arent wasnt werent wont cant
  cannot`.split(/\s+/),
);

/** Where a text splits into words: anything but letters, digits and apostrophes inside a word. */
const WORD_BREAK = /[^\p{L}\p{N}']+/u;

/** Words are compared by this many letters at most: "accuracy" meets "accurate", "forecast" meets "forecasting". */
const STEM_LETTERS = 6;

function singular(word: string): string {
  if (word.length > 5 && word.endsWith('ves')) return `${word.slice(0, -3)}f`;
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** A word without its -ing, -ed or final e, when enough of it is left: "pricing", "priced", "price" → "pric". */
function root(word: string): string {
  const bare = /^(.{4,})(?:ing|ed)$/.exec(word)?.[1] ?? word;
  return bare.length > 4 && bare.endsWith('e') ? bare.slice(0, -1) : bare;
}

/**
 * A word's stem: its plural, possessive and -ing or -ed endings taken off ("alerts" → "alert",
 * "shelves" → "shelf", "pricing" → "pric"), then at most its first six letters: a crude stemmer
 * that English does well enough with, and that needs no word list.
 */
function stem(word: string): string {
  return root(singular(word.replace(/'s?$/, '').replace(/'/g, ''))).slice(0, STEM_LETTERS);
}

/** One word as a term; null for a word that says nothing (a stop word, a single letter). */
export function termOf(word: string): string | null {
  const lower = word.toLowerCase().replace(/[’‘]/g, "'");
  const bare = lower.replace(/'/g, '');
  if (STOP_WORDS.has(bare) || STOP_WORDS.has(singular(bare))) return null;
  const term = stem(lower);
  return term.length < 2 ? null : term;
}

/** The terms of a text, in order, repeats kept. */
export function termsOf(text: string): string[] {
  return text
    .replace(/[’‘]/g, "'")
    .split(WORD_BREAK)
    .map(termOf)
    .filter((term): term is string => term !== null);
}

/** How much of a text's terms another text has too: 1 when it says nothing the other does not. */
export function sharedWith(text: string, other: string): number {
  const terms = new Set(termsOf(text));
  const others = new Set(termsOf(other));
  if (terms.size === 0) return 0;
  return [...terms].filter((term) => others.has(term)).length / terms.size;
}
