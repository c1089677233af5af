import type { Topic, TopicEntry } from '../../resources/topics/schema.ts';
import { normalize } from './check.ts';
import { type Accepts, type LinkPolicy, markdownText, SENTENCE_BREAK, safeMarkdown } from './markdown.ts';

/**
 * The knowledge as passages: each paragraph or list of each topic entry, read as the safe markdown
 * subset whatever the entry's type, with only the sentences the page may show. A passage is what
 * the built-in personalizer ranks, chooses and shows: one entry's paragraphs can be chosen apart, so
 * a long entry gives its best paragraph and a bad one does not come with the rest.
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
  /** Its copy, in the safe subset. */
  markdown: string;
  /** What a reader sees of it. */
  text: string;
}

/** What turning knowledge into passages keeps: links it may keep, sentences it may show. */
export interface PassageRules {
  allowLink: LinkPolicy;
  accepts: Accepts;
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

/** A block's copy, its repeats left out and a long paragraph cut to its first sentences. */
function trimmed(copy: string, accepts: Accepts): string {
  const lines = copy.split('\n');
  if (lines.every((line) => LIST_ITEM.test(line))) {
    const items = once(lines.map((line) => line.replace(LIST_ITEM, ''))).slice(0, MAX_ITEMS);
    const ordered = /^\d/.test(lines[0] ?? '');
    return items.map((item, n) => `${ordered ? `${n + 1}.` : '-'} ${item}`).join('\n');
  }
  const sentences = once(copy.split(SENTENCE_BREAK));
  let kept = sentences.slice(0, 1);
  for (const sentence of sentences.slice(1)) {
    if (kept.join(' ').length + sentence.length + 1 > MAX_CHARS) break;
    kept = [...kept, sentence];
  }
  const paragraph = kept.join(' ');
  return accepts(paragraph) ? paragraph : (sentences.find(accepts) ?? '');
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
    const markdown = trimmed(safeMarkdown(block, rules.allowLink, rules.accepts), rules.accepts);
    const shown = markdownText(markdown);
    if (wordsIn(shown) < MIN_WORDS) continue;
    passages.push({ id: `${entry.topicEntryId}#${index}`, topic, entry, heading, markdown, text: shown });
  }
  return passages;
}

/** Every passage of the topics' entries that has something to show, in the knowledge's order. */
export function passagesOf(topics: Topic[], rules: PassageRules): Passage[] {
  return topics
    .flatMap((topic) => topic.entries.flatMap((entry) => entryPassages(topic, entry, rules)))
    .map((passage, order) => ({ ...passage, order }));
}
