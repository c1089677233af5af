import type { VersionContent } from '../../resources/audiences/schema.ts';
import type { Topic } from '../../resources/topics/schema.ts';
import { BARE_ADDRESS, MARKS_AS_WRITTEN } from '../../shared/markdown-html.ts';
import type { PersonalizationInput } from './input.ts';
import { markdownShown, SENTENCE_BREAK, shownText } from './markdown.ts';

/**
 * The check stage: what no version may say or show, whoever wrote it. A page never carries a
 * sentence of the audience's private context or of the person's log, nor another brand's knowledge
 * or name; it has no empty part, no markup a reader would see, and no link but to the page's own
 * actions.
 */

export const MAX_HEADLINE = 90;
export const MAX_SUBHEADLINE = 300;
export const MAX_SECTIONS = 4;
/** A shorter run of words is common speech, not a quotation. */
const QUOTED_WORDS = 3;
/** A run this long shared with a private text is a quotation even inside a longer sentence. */
const SHINGLE_WORDS = 8;

export interface Problem {
  /** A JSON pointer into the content, such as `/sections/1/body`. */
  path: string;
  problem: string;
}

/** What a version of one page for one audience is checked against. */
export interface CheckRules {
  /** Normalized phrases and word runs that must not appear, with why. */
  forbidden: { phrase: string; why: string }[];
  /** Other brands' names, which must not appear. */
  foreignNames: string[];
  /** The page's actions, which the version's actions must be, and the only places it may link to. */
  actions: { actionId: string; url: string }[];
}

/** Lowercase words separated by single spaces: how texts are compared. */
export function normalize(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** A sentence ends at its punctuation or at a line's end. */
const SENTENCE_OR_LINE_BREAK = new RegExp(`${SENTENCE_BREAK.source}|\\n+`);

export function sentencesOf(text: string): string[] {
  return text
    .split(SENTENCE_OR_LINE_BREAK)
    .map((sentence) => sentence.trim())
    .filter(Boolean);
}

function phrasesOf(text: string, why: string): { phrase: string; why: string }[] {
  const sentences = sentencesOf(text)
    .map(normalize)
    .filter((sentence) => sentence.split(' ').length >= QUOTED_WORDS);
  const words = normalize(text).split(' ').filter(Boolean);
  const runs: string[] = [];
  for (let at = 0; at + SHINGLE_WORDS <= words.length; at++)
    runs.push(words.slice(at, at + SHINGLE_WORDS).join(' '));
  return [...new Set([...sentences, ...runs])].map((phrase) => ({ phrase, why }));
}

function topicTexts(topics: Topic[]): string[] {
  return topics.flatMap((topic) => [
    topic.title,
    ...topic.entries.map((entry) => shownText(entry.content.content)),
  ]);
}

/** Everything the page may say in its own right: what it shares with a private text is no secret. */
function publicText(input: PersonalizationInput): string {
  const { page } = input;
  return normalize(
    [
      page.name,
      page.title,
      page.pageContext,
      page.metadata?.description ?? '',
      ...page.actions.flatMap((action) => [action.buttonTitle, action.purpose]),
      input.brand?.name ?? '',
      input.person?.name ?? '',
      input.account?.name ?? '',
      ...topicTexts(input.topics),
    ].join('\n'),
  );
}

/**
 * Every sentence and long run of words of the private texts, those the page's own texts share
 * included: what the check lets through when the knowledge says it too, but the built-in
 * personalizer still never writes.
 */
export function privatePhrases(input: PersonalizationInput): CheckRules['forbidden'] {
  return [
    ...phrasesOf(input.private.context, "quotes the audience's private context"),
    ...input.private.notes.flatMap((note) => phrasesOf(note, "quotes the person's log")),
  ];
}

/** The rules of a version, from what the generation gathered. */
export function rulesFor(input: PersonalizationInput): CheckRules {
  const own = normalize([input.page.name, input.page.pageContext, input.brand?.name ?? ''].join(' '));
  const shared = ` ${publicText(input)} `;
  const secret = (phrase: { phrase: string }) => !shared.includes(` ${phrase.phrase} `);
  return {
    forbidden: [
      ...privatePhrases(input).filter(secret),
      ...topicTexts(input.foreign.topics).flatMap((text) =>
        sentencesOf(text)
          .map(normalize)
          .filter((sentence) => sentence.split(' ').length > QUOTED_WORDS)
          .map((phrase) => ({ phrase, why: "uses another brand's topic" }))
          .filter(secret),
      ),
    ],
    // A name the page's own words use is not another brand's to the reader.
    foreignNames: input.foreign.brandNames
      .map(normalize)
      .filter((name) => name && !` ${own} `.includes(` ${name} `)),
    actions: input.page.actions.map((action) => ({
      actionId: action.actionId,
      url: input.audience.actionUrlOverride ?? action.url,
    })),
  };
}

/** The first thing in `text` (normalized) that the rules forbid, if any. */
export function forbiddenIn(text: string, rules: CheckRules): string | undefined {
  const padded = ` ${normalize(text)} `;
  const quoted = rules.forbidden.find(({ phrase }) => padded.includes(` ${phrase} `));
  if (quoted) return quoted.why;
  const name = rules.foreignNames.find((foreign) => padded.includes(` ${foreign} `));
  return name ? `names another brand (${name})` : undefined;
}

// Every bare address in a text, as the page's rendering finds one.
const BARE_ADDRESSES = new RegExp(BARE_ADDRESS.source, 'gi');

function urlsIn(text: string): string[] {
  return [...text.matchAll(BARE_ADDRESSES)].map((match) => match[0].replace(/[.,;:!?]+$/, ''));
}

interface Part {
  path: string;
  /** What a reader sees. */
  text: string;
  links: string[];
  required: boolean;
  maxLength?: number;
}

function partsOf(content: VersionContent): Part[] {
  const plain = (path: string, text: string, required: boolean, maxLength?: number): Part => ({
    path,
    text,
    links: [],
    required,
    maxLength,
  });
  return [
    plain('/headline', content.headline, true, MAX_HEADLINE),
    plain('/subheadline', content.subheadline, false, MAX_SUBHEADLINE),
    ...content.sections.flatMap((section, index) => [
      plain(`/sections/${index}/heading`, section.heading, true),
      { path: `/sections/${index}/body`, ...markdownShown(section.body), required: true },
    ]),
    ...content.actions.map((action, index) =>
      plain(`/actions/${index}/buttonTitle`, action.buttonTitle, true),
    ),
  ];
}

function allowedUrlsOf(rules: CheckRules): Set<string> {
  return new Set(rules.actions.map((action) => action.url).filter(Boolean));
}

/** What is wrong with what a reader sees, wherever it stands: markup, a forbidden text, a foreign link. */
export function shownProblems(shown: { text: string; links: string[] }, rules: CheckRules): string[] {
  const problems: string[] = [];
  // Text that looks like HTML is the writer's text: pages escape it, so it shows as written.
  if (MARKS_AS_WRITTEN.test(shown.text)) problems.push('shows markup');
  const forbidden = forbiddenIn(shown.text, rules);
  if (forbidden) problems.push(forbidden);
  const allowedUrls = allowedUrlsOf(rules);
  for (const url of [...shown.links, ...urlsIn(shown.text)]) {
    if (!allowedUrls.has(url)) problems.push(`links to ${url}, which is not one of the page's actions`);
  }
  return problems;
}

/** What the check refuses in plain copy (a headline, a heading), whatever its place and length. */
export function plainProblems(text: string, rules: CheckRules): string[] {
  return shownProblems({ text, links: [] }, rules);
}

/** What the check refuses in markdown copy (a section body or part of one), whatever its place. */
export function markdownProblems(markdown: string, rules: CheckRules): string[] {
  return shownProblems(markdownShown(markdown), rules);
}

function partProblems(part: Part, rules: CheckRules): Problem[] {
  const problems: string[] = [];
  if (part.required && !part.text.trim()) problems.push('is empty');
  if (part.maxLength !== undefined && part.text.length > part.maxLength)
    problems.push(`is longer than ${part.maxLength} characters`);
  problems.push(...shownProblems(part, rules));
  return problems.map((problem) => ({ path: part.path, problem }));
}

function actionProblems(content: VersionContent, rules: CheckRules): Problem[] {
  const shown = content.actions.map((action) => `${action.actionId} ${action.url}`).join('\n');
  const expected = rules.actions.map((action) => `${action.actionId} ${action.url}`).join('\n');
  return shown === expected ? [] : [{ path: '/actions', problem: "are not the page's actions" }];
}

/** Everything wrong with a version's content; none when it may be served. */
export function checkContent(content: VersionContent, rules: CheckRules): Problem[] {
  return [
    ...(content.sections.length > MAX_SECTIONS
      ? [{ path: '/sections', problem: `has more than ${MAX_SECTIONS} sections` }]
      : []),
    ...partsOf(content).flatMap((part) => partProblems(part, rules)),
    ...actionProblems(content, rules),
  ];
}

/** The problems in words, for a version's generation note and a job's error. */
export function describeProblems(problems: Problem[]): string {
  return problems.map((problem) => `${problem.path} ${problem.problem}`).join('; ');
}
