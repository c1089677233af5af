import type { Topic } from '../../resources/topics/schema.ts';
import { sentencesOf } from './check.ts';
import type { PersonalizationInput } from './input.ts';
import { shownText } from './markdown.ts';
import { termsOf } from './terms.ts';

/**
 * What the audience's private guidance (its supplementary context, the person's notes) asks of a
 * page: the subjects it stresses, the subjects it rules out, and whether the page should be short.
 * It steers what is chosen and what comes first; none of its words is copy.
 */
export interface Guidance {
  /** The terms of what it asks the page to be about, each with its weight (1 for its first sentence's). */
  steering: Map<string, number>;
  /** The subjects it rules out, each as its terms: a text with all of them is about the subject. */
  excluded: string[][];
  /** It asks for a short page ("keep it short", "short, plain", "concise"). */
  brief: boolean;
}

/**
 * "no interest in X", "don't mention X", "avoid X"… up to the end of the clause. "avoid" rules out
 * only as an instruction (opening a clause, or "avoid mentioning"): "they want to avoid stock-outs"
 * says what the audience cares about.
 */
const RULES_OUT = new RegExp(
  String.raw`(?:\b(?:` +
    [
      'no interest in',
      '(?:is |are |was |were )?not interested in',
      "(?:isn't|aren't|wasn't|weren't) interested in",
      "(?:do|does|did)(?: not|n't) (?:care about|want|need|mention|discuss|talk about|bring up)",
      'never (?:mention|discuss|talk about|bring up)',
      'avoid (?:mentioning|discussing|talking about)',
      'stay away from',
      'steer clear of',
      'leave out',
      'keep quiet about',
      'say nothing (?:about|of)',
      'no mention of',
    ].join('|') +
    String.raw`)|(?:^|[.,;:!?]\s*|\b(?:and|but|please)\s+)avoid)\s+([^.;:!?,\n]+)`,
  'gim',
);

/** "…, not X": a contrast that rules X out ("stock-outs, not dashboards"; "Not pricing."). */
const CONTRAST =
  /(?:^|[,;(—–]\s*|\brather\s+)not\s+(?!only\b|just\b|yet\b|until\b|sure\b|interested\b)([^.;:!?,\n]+)/gim;

/** Where a clause that rules out names several subjects ("pricing or discounts"). */
const SUBJECTS_BREAK = /\s*(?:\b(?:and|or|nor|but)\b|\/)\s*/i;

/** A request for a short page ("keep it short, plain", "short and simple", "be brief", "concise"). */
const STYLE = '(?:short|brief|simple|plain|sweet)';
const BRIEF = new RegExp(
  String.raw`\b(?:keep (?:it|things|the page|this) ${STYLE}|short(?=(?:\s*,\s*|\s+and\s+)${STYLE})|be brief|brief|concise|to the point)(?:(?:\s*,\s*|\s+and\s+)${STYLE}\b)*`,
  'gi',
);

/** Words that tell the writer what to do rather than what the page is about. */
const DIRECTIVES = new Set(
  termsOf(`lead start open begin focus stress highlight emphasize emphasise mention show keep put first
  want wanted ask asked care cared interest interested like love page copy tone visitor audience call`),
);

function guidanceTexts(input: PersonalizationInput): string[] {
  return [input.private.context, ...input.private.notes]
    .map((text) => text.replace(/[’‘]/g, "'"))
    .filter((text) => text.trim() !== '');
}

function subjectsOf(clause: string): string[][] {
  return clause
    .split(SUBJECTS_BREAK)
    .map((subject) => termsOf(subject).filter((term) => !DIRECTIVES.has(term)))
    .filter((terms) => terms.length > 0);
}

/**
 * How much less each sentence of the guidance weighs than the one before it: what it says first, it
 * stresses most (the context before the notes, the newest note first).
 */
const LATER_SENTENCE_DECAY = 0.5;

export function readGuidance(input: PersonalizationInput): Guidance {
  const excluded: string[][] = [];
  let brief = false;
  const steering = new Map<string, number>();
  const sentences = guidanceTexts(input).flatMap(sentencesOf);
  let steered = 0;
  for (const sentence of sentences) {
    const rest = sentence
      .replace(RULES_OUT, (_match, clause: string) => {
        excluded.push(...subjectsOf(clause));
        return ' ';
      })
      .replace(CONTRAST, (_match, clause: string) => {
        excluded.push(...subjectsOf(clause));
        return ' ';
      })
      .replace(BRIEF, () => {
        brief = true;
        return ' ';
      });
    // A number matches by accident ("40 stores" is not "40 other systems").
    const terms = termsOf(rest).filter((term) => !DIRECTIVES.has(term) && !/^\d+$/.test(term));
    if (terms.length === 0) continue;
    const weight = 1 / (1 + LATER_SENTENCE_DECAY * steered++);
    for (const term of terms) steering.set(term, Math.max(steering.get(term) ?? 0, weight));
  }
  return { steering, excluded, brief };
}

/** Whether a text is about one of the subjects: it has every term of it. */
export function mentionsAny(text: string, subjects: string[][]): boolean {
  if (subjects.length === 0) return false;
  const terms = new Set(termsOf(text));
  return subjects.some((subject) => subject.every((term) => terms.has(term)));
}

/**
 * The knowledge a personalizer may draw on for this audience: the brand's topics without what the
 * guidance rules out (a topic whose title is about such a subject, an entry that mentions one).
 */
export function allowedTopics(input: PersonalizationInput): Topic[] {
  const { excluded } = readGuidance(input);
  if (excluded.length === 0) return input.topics;
  return input.topics
    .filter((topic) => !mentionsAny(topic.title, excluded))
    .map((topic) => ({
      ...topic,
      entries: topic.entries.filter((entry) => !mentionsAny(shownText(entry.content.content), excluded)),
    }));
}
