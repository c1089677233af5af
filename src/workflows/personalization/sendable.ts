/**
 * Sentences a marketer would not send, though the check lets them through: a sentence about the
 * page or its making ("Chosen for …", "this page starts with …", "personalized for you"), hype
 * ("world-class", "Act now!!!"), and placeholders ("TBD", "Lorem ipsum", "{{company}}"). The
 * built-in personalizer leaves them out of what it shows, whoever wrote them (a topic entry, the
 * page's context).
 */

const ABOUT_THE_PAGE = [
  /\bthis (?:page|site|website|landing page|microsite|document|deck|section)\b/i,
  /\b(?:personali[sz]ed|customi[sz]ed|tailored|curated|hand-?picked|chosen|picked|selected|prepared|written|generated|made|built|assembled) (?:just |especially |specifically )?for you\b/i,
  /^(?:chosen|picked|selected|curated|prepared|personali[sz]ed|tailored) for\b/i,
  /\bbased on (?:your|their|his|her) (?:profile|interests|activity|browsing|visits?|role)\b/i,
  /\b(?:we|i) (?:have )?(?:prepared|put together|made|built|wrote|assembled|picked|chose) (?:this|these)\b/i,
  /\b(?:ai|model|machine|algorithm)[- ](?:generated|written)\b/i,
  /\byou(?:'re| are) (?:reading|seeing|viewing) (?:this|a)\b/i,
];

const HYPE = [
  /!{2,}/,
  /\b(?:world[- ]class|best[- ]in[- ]class|cutting[- ]edge|game[- ]?chang\w*|revolutionar\w*|synerg\w*|industry[- ]leading|unparalleled|unrivall?ed|state[- ]of[- ]the[- ]art|second to none|one[- ]stop[- ]shop|next[- ]level|paradigm shift)\b/i,
  /\b(?:act now|don'?t miss out|contact us today|call us today|click here|limited[- ]time offer|sign up today|buy now)\b/i,
];

const PLACEHOLDER = [
  /\b(?:lorem ipsum|tbd|tbc|todo|tktk|placeholder|coming soon|to be confirmed|to be decided)\b/i,
  /\{\{[^}]*\}\}|\[(?:name|company|first name|insert[^\]]*)\]|\binsert [\w ]+ here\b/i,
];

/** A sentence written in capitals throughout (three words or more): shouting. */
function shouts(sentence: string): boolean {
  const words = sentence.match(/\p{L}{2,}/gu) ?? [];
  return words.length >= 3 && words.every((word) => word === word.toUpperCase());
}

/** Whether a sentence (as a reader sees it) is one a marketer would not send. */
export function unsendable(sentence: string): boolean {
  const text = sentence.replace(/[’‘]/g, "'");
  return shouts(text) || [...ABOUT_THE_PAGE, ...HYPE, ...PLACEHOLDER].some((pattern) => pattern.test(text));
}

/** Where a whole sentence ends: copy is checked a clause at a time, but "Chosen for X: Y." is one sentence. */
const FULL_STOP = /(?<=[.!?…])\s+|\n+/;

/**
 * Which pieces of a text (as a reader sees them) may be shown: those that are not, nor are part of,
 * a sentence a marketer would not send. Copy is written a clause at a time, and "Chosen for Globex
 * Retail: Shelf-gap alerts." must go as a whole, not leave "Shelf-gap alerts." behind.
 */
export function sendablePieces(text: string): (piece: string) => boolean {
  const unsent = text
    .split(FULL_STOP)
    .map((sentence) => sentence.trim())
    .filter(unsendable);
  return (piece) => {
    const shown = piece.trim();
    return !unsendable(shown) && !unsent.some((sentence) => sentence.includes(shown));
  };
}
