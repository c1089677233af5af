import type { Topic, TopicEntry } from '../../resources/topics/schema.ts';
import { normalize } from './check.ts';
import {
  type Accepts,
  type LinkPolicy,
  markdownShown,
  markdownText,
  SENTENCE_BREAK,
  safeMarkdown,
} from './markdown.ts';
import { sendablePieces } from './sendable.ts';
import { termsOf } from './terms.ts';

/**
 * The knowledge as passages: each paragraph or list of each topic entry, read as the safe markdown
 * subset whatever the entry's type. A passage is what the built-in personalizer ranks, chooses and
 * shows: one entry's paragraphs can be chosen apart, so a long entry gives its best paragraph and a
 * bad one does not come with the rest. Its copy, with only the sentences the page may show, is made
 * when a page first asks for it: a page shows a few passages of knowledge that may hold thousands.
 */
export interface Passage {
  /** Its entry's id and its place in the entry. */
  id: string;
  /** Its place in the knowledge (topics in list order, entries in theirs): what settles a tie. */
  order: number;
  topic: Topic;
  entry: TopicEntry;
  /** The heading its entry writes above it (a markdown heading), if any. */
  heading: string | undefined;
  /** What a reader sees of it as written: what it is ranked by. */
  text: string;
  /** Its copy in the safe subset, with only what may be shown; undefined when too little may. */
  copy(): string | undefined;
}

/** What turning knowledge into copy keeps: the links it may keep, the pieces it may show. */
export interface PassageRules {
  allowLink: LinkPolicy;
  /** Whether a piece of copy may be shown, by what a reader sees of it and the links it writes. */
  shows(shown: { text: string; links: string[] }): boolean;
}

/** Fewer words than this is not something to show ("TBD", "-", "See below"). */
const MIN_WORDS = 3;
/** A paragraph longer than this shows its first sentences, up to this length: a page is read, not searched. */
const MAX_CHARS = 480;
const MAX_ITEMS = 6;
/** A heading as the safe subset writes it: one bold run, alone in its block. */
const HEADING = /^\*\*(?:[^*\n]|\\\*)+\*\*$/;
const HEADING_CHARS = 80;
const LIST_ITEM = /^(?:-|\d+\.) /;

function wordsIn(text: string): number {
  return text.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word)).length;
}

/** Each piece once, in order: an entry that says a thing twice shows it once. */
function once(pieces: string[]): string[] {
  const seen = new Set<string>();
  return pieces.filter((piece) => {
    const key = normalize(markdownText(piece));
    if (!key || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The first pieces, up to `max` characters together (the first always). */
function upTo(pieces: string[], max: number): string[] {
  const kept: string[] = [];
  let length = 0;
  for (const piece of pieces) {
    if (kept.length > 0 && length + piece.length > max) break;
    kept.push(piece);
    length += piece.length + 1;
  }
  return kept;
}

/** A block's copy, its repeats left out and a long paragraph cut to its first sentences. */
function trimmed(copy: string, accepts: Accepts): string {
  const lines = copy.split('\n');
  if (lines.every((line) => LIST_ITEM.test(line))) {
    const items = once(lines.map((line) => line.replace(LIST_ITEM, ''))).slice(0, MAX_ITEMS);
    const ordered = /^\d/.test(lines[0] ?? '');
    return items.map((item, n) => `${ordered ? `${n + 1}.` : '-'} ${item}`).join('\n');
  }
  const sentences = once(copy.split(SENTENCE_BREAK));
  const paragraph = upTo(sentences, MAX_CHARS).join(' ');
  return accepts(paragraph) ? paragraph : (sentences.find(accepts) ?? '');
}

/**
 * A block cut to what its copy could use: the sentences or items a page could show of it, and as
 * many again for those that may not be shown. (The safe subset writes each sentence with its marks
 * closed, so a block cuts between sentences.)
 */
function cut(block: string): string {
  const lines = block.split('\n');
  if (lines.every((line) => LIST_ITEM.test(line))) return lines.slice(0, 2 * MAX_ITEMS).join('\n');
  return upTo(block.split(SENTENCE_BREAK), 2 * MAX_CHARS).join(' ');
}

/** A block's copy: what of it may be shown, cut to length; undefined when too little may. */
function copyOf(block: string, text: string, rules: PassageRules): string | undefined {
  const sendable = sendablePieces(text);
  const accepts: Accepts = (piece) => {
    const shown = markdownShown(piece);
    return sendable(shown.text) && rules.shows(shown);
  };
  const markdown = trimmed(safeMarkdown(cut(block), rules.allowLink, accepts), accepts);
  return wordsIn(markdownText(markdown)) >= MIN_WORDS ? markdown : undefined;
}

function entryPassages(topic: Topic, entry: TopicEntry, rules: PassageRules): Omit<Passage, 'order'>[] {
  const blocks = safeMarkdown(entry.content.content, rules.allowLink)
    .split('\n\n')
    .filter((block) => block.trim() !== '');
  const passages: Omit<Passage, 'order'>[] = [];
  let heading: string | undefined;
  for (const [index, block] of blocks.entries()) {
    const text = markdownText(block);
    if (HEADING.test(block) && text.length <= HEADING_CHARS && index < blocks.length - 1) {
      heading = text;
      continue;
    }
    if (wordsIn(text) < MIN_WORDS) continue;
    let copy: { markdown: string | undefined } | undefined;
    passages.push({
      id: `${entry.topicEntryId}#${index}`,
      topic,
      entry,
      heading,
      text,
      copy: () => {
        copy ??= { markdown: copyOf(block, text, rules) };
        return copy.markdown;
      },
    });
  }
  return passages;
}

/** The words a passage says, in any order: two passages with the same say the same thing. */
function saying(passage: { text: string }): string {
  return [...new Set(termsOf(passage.text))].sort().join(' ');
}

/**
 * Every passage of the topics' entries that has words to show, in the knowledge's order, each said
 * once: a restatement ("Each trial lasts 30 days" and "Each trial lasts for 30 days!") is
 * left out, so that it neither shows twice nor makes its words look common to the ranking.
 */
export function passagesOf(topics: Topic[], rules: PassageRules): Passage[] {
  const said = new Set<string>();
  return topics
    .flatMap((topic) => topic.entries.flatMap((entry) => entryPassages(topic, entry, rules)))
    .filter((passage) => {
      const key = saying(passage);
      if (said.has(key)) return false;
      said.add(key);
      return true;
    })
    .map((passage, order) => ({ ...passage, order }));
}
