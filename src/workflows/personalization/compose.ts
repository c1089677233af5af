import { createHash } from 'node:crypto';
import type { VersionContent } from '../../resources/audiences/schema.ts';
import type { Brand } from '../../resources/brands/schema.ts';
import type { Page, PageType } from '../../resources/pages/schema.ts';
import type { TopicEntry } from '../../resources/topics/schema.ts';
import { type CheckRules, forbiddenIn, MAX_HEADLINE, MAX_SECTIONS, sentencesOf } from './check.ts';
import type { PersonalizationInput } from './input.ts';
import { escapeMarkdown, markdownText } from './markdown.ts';
import { companyName, firstName } from './names.ts';
import type { SelectedTopic } from './select.ts';

/**
 * The compose stage of the built-in personalizer: a layout per page type (hero, at most four
 * sections, the page's actions, metadata), written in sentences that fit the audience (a person at
 * an account, an account, anyone). Each wording has a few phrasings; which one an audience gets is
 * decided by a hash of its id, so that one page's audiences do not read as one template and a
 * version generated again reads the same.
 */

/** Who a page speaks to and on whose behalf, as far as known. */
interface Who {
  first?: string;
  company?: string;
  brand?: string;
  page: string;
}

/** A phrasing; nothing (undefined, false or '') when it needs what the audience does not have. */
type Phrasing = (who: Who) => string | false | undefined;

/** What the brand's voice asks of the wording. */
interface Voice {
  /** Address no one by their first name. */
  formal: boolean;
  /** Words and phrases never to use. */
  avoid: string[];
}

const FORMAL = /\b(formal|professional|reserved|corporate)\b/i;
const INFORMAL = /\b(informal|casual|friendly|playful|warm)\b/i;
const AVOID = /\b(?:avoid|never (?:say|use)|don'?t (?:say|use)|do not (?:say|use))\b:?\s*([^.\n]+)/gi;

export function voiceOf(brand: Brand | undefined): Voice {
  const text = brand?.voice ?? '';
  const avoid = [...text.matchAll(AVOID)]
    .flatMap((match) => (match[1] ?? '').split(/,|;|\bor\b|\band\b/))
    .map((word) =>
      word
        .replace(/["'“”‘’]/g, '')
        .trim()
        .toLowerCase(),
    )
    .filter((word) => word.length > 0 && word.length <= 40);
  return { formal: FORMAL.test(text) && !INFORMAL.test(text), avoid };
}

function stableIndex(seed: string, count: number): number {
  return createHash('sha256').update(seed).digest().readUInt32BE(0) % count;
}

function speaks(text: string, voice: Voice): boolean {
  const padded = ` ${text.toLowerCase()} `;
  return !voice.avoid.some((word) => padded.includes(word));
}

/** One phrasing for this audience and slot, always the same; undefined when none fits. */
function phrase(
  seed: string,
  phrasings: Phrasing[],
  who: Who,
  voice: Voice,
  maxLength = Number.POSITIVE_INFINITY,
): string | undefined {
  const fitting = phrasings
    .map((phrasing) => phrasing(who))
    .filter((text): text is string => typeof text === 'string' && text.length > 0)
    .filter((text) => text.length <= maxLength && speaks(text, voice));
  return fitting.length > 0 ? fitting[stableIndex(seed, fitting.length)] : undefined;
}

const HEADLINES: Record<PageType, Phrasing[]> = {
  inbound: [
    ({ first, brand, company }) =>
      first && brand && company && `${first}, see how ${brand} works for ${company}`,
    ({ brand, company }) => brand && company && `How ${brand} helps ${company}`,
    ({ brand, company }) => brand && company && `${company}, meet ${brand}`,
    ({ page, company }) => company && `${page} for ${company}`,
    ({ page, company }) => company && `Built for ${company}: ${page}`,
  ],
  outbound: [
    ({ first, company }) => first && company && `${first}, we prepared this for ${company}`,
    ({ page, company }) => company && `${page}, prepared for ${company}`,
    ({ page, company }) => company && `For ${company}: ${page}`,
    ({ first, page }) => first && `${first}, this ${page.toLowerCase()} is for you`,
  ],
  call_followup: [
    ({ first }) => first && `${first}, thank you for your time`,
    ({ first }) => first && `Following up on our conversation, ${first}`,
    ({ first }) => first && `${first}, here is what we discussed`,
    ({ company, first }) => !first && company && `Following up on our conversation with ${company}`,
    ({ company, first }) => !first && company && `Thank you, ${company}: what we discussed`,
    ({ first, company }) => !first && !company && 'Following up on our conversation',
  ],
  sales_deck: [
    ({ brand, company }) => brand && company && `${brand} for ${company}`,
    ({ company }) => company && `A proposal for ${company}`,
    ({ brand, company }) => brand && company && `${company} and ${brand}: the plan`,
    ({ page, company }) => company && `${page} for ${company}`,
  ],
  custom: [
    ({ page, company }) => company && `${page} for ${company}`,
    ({ page, company }) => company && `For ${company}: ${page}`,
  ],
};

const INTRO_HEADINGS: Record<PageType, Phrasing[]> = {
  inbound: [
    ({ brand, company }) => brand && company && `What ${brand} does for ${company}`,
    ({ company }) => company && `For the team at ${company}`,
    ({ company }) => company && `What it means for ${company}`,
    ({ company }) => !company && 'How it works',
    ({ company }) => !company && 'What you get',
  ],
  outbound: [
    () => 'Why we are reaching out',
    ({ company }) => company && `Why now for ${company}`,
    () => 'What you get',
  ],
  call_followup: [() => 'What we discussed', () => 'A quick recap', () => 'Where we left off'],
  sales_deck: [({ brand }) => brand && `What ${brand} does`, () => 'The short version', () => 'How it works'],
  custom: [() => 'Overview', () => 'In short'],
};

const NEXT_STEP_HEADINGS: Phrasing[] = [() => 'Next step', () => 'What happens next', () => 'Your next step'];

const RECAP_OPENINGS: Phrasing[] = [
  ({ first }) => (first ? `Thank you for the conversation, ${first}.` : 'Thank you for the conversation.'),
  () => 'Thank you for your time.',
  ({ company }) => (company ? `It was good to talk with the team at ${company}.` : undefined),
];

/** Which parts each kind of page has, in order, beside the topics that fill the rest. */
const LAYOUTS: Record<PageType, { intro: boolean; recap: boolean; nextStep: boolean }> = {
  inbound: { intro: true, recap: false, nextStep: false },
  outbound: { intro: true, recap: false, nextStep: true },
  call_followup: { intro: true, recap: true, nextStep: true },
  sales_deck: { intro: true, recap: false, nextStep: true },
  custom: { intro: true, recap: false, nextStep: false },
};

function whoOf(input: PersonalizationInput, voice: Voice): Who {
  return {
    first: input.person && !voice.formal ? firstName(input.person.name) : undefined,
    company: input.account ? companyName(input.account) : undefined,
    brand: input.brand?.name,
    page: input.page.name,
  };
}

/** The hero's second line: the page's description, else the first sentence of its context. */
function subheadlineOf(page: Page): string {
  return page.metadata?.description?.trim() || sentencesOf(page.pageContext)[0] || '';
}

/**
 * Plain text as page copy: its paragraphs, with only the sentences the rules allow, less `except`;
 * as plain text, or as markdown that reads back as that text.
 */
function allowedCopy(text: string, rules: CheckRules, except = '', asMarkdown = true): string {
  return text
    .split(/\n\s*\n/)
    .map((paragraph) =>
      sentencesOf(paragraph)
        .filter((sentence) => sentence !== except && forbiddenIn(sentence, rules) === undefined)
        .map((sentence) => (asMarkdown ? escapeMarkdown(sentence) : sentence))
        .join(' '),
    )
    .filter(Boolean)
    .join('\n\n');
}

/** A link the page may show: one of its actions; any other shows as its text. */
function withOnlyActionLinks(markdown: string, rules: CheckRules): string {
  const allowed = new Set(rules.actions.map((action) => action.url).filter(Boolean));
  return markdown.replace(/\[([^\]]*)\]\(([^)\s]*)(?:\s+"[^"]*")?\)/g, (link, text: string, url: string) =>
    allowed.has(url) ? link : text,
  );
}

const URL_IN_TEXT = /\b(?:https?:\/\/|www\.)\S+/i;

/** An entry as page copy, or undefined when nothing of it may be shown. */
function entryCopy(entry: TopicEntry, rules: CheckRules): string | undefined {
  const source =
    entry.content.type === 'markdown'
      ? withOnlyActionLinks(entry.content.content, rules)
      : escapeMarkdown(entry.content.content);
  const text = markdownText(source);
  if (!text || URL_IN_TEXT.test(text) || forbiddenIn(text, rules) !== undefined) return undefined;
  return source.trim();
}

/** A topic's entries as a section body: a list when there are several short ones, else paragraphs. */
function bodyOf(copies: string[]): string {
  if (copies.length > 1 && copies.every((copy) => !copy.includes('\n') && copy.length <= 280)) {
    return copies.map((copy) => `- ${copy}`).join('\n');
  }
  return copies.join('\n\n');
}

interface Section {
  heading: string;
  body: string;
}

function introSection(input: PersonalizationInput, who: Who, voice: Voice, rules: CheckRules, hero: string) {
  const body = allowedCopy(input.page.pageContext, rules, hero);
  const heading = phrase(`${input.audience.id}:intro`, INTRO_HEADINGS[input.page.pageType], who, voice);
  return body && heading ? { heading, body } : undefined;
}

/** The first entry of each topic that may be shown on one line: the points of a recap. */
function recapPoints(topics: SelectedTopic[], rules: CheckRules): Map<TopicEntry, string> {
  const points = new Map<TopicEntry, string>();
  for (const selected of topics) {
    for (const entry of selected.entries) {
      const copy = entryCopy(entry, rules);
      if (copy && !copy.includes('\n')) {
        points.set(entry, copy);
        break;
      }
    }
  }
  return points;
}

function recapSection(seed: string, points: string[], who: Who, voice: Voice): Section | undefined {
  const opening = phrase(`${seed}:recap-opening`, RECAP_OPENINGS, who, voice);
  const heading = phrase(`${seed}:recap`, INTRO_HEADINGS.call_followup, who, voice);
  if (points.length === 0 || !opening || !heading) return undefined;
  const lead = `${opening} Here is more on what we covered:`;
  return { heading, body: `${escapeMarkdown(lead)}\n\n${points.map((point) => `- ${point}`).join('\n')}` };
}

function topicSection(
  selected: SelectedTopic,
  rules: CheckRules,
  shown: Set<TopicEntry>,
): Section | undefined {
  const copies = selected.entries
    .filter((entry) => !shown.has(entry))
    .map((entry) => entryCopy(entry, rules))
    .filter((copy): copy is string => copy !== undefined);
  if (copies.length === 0 || forbiddenIn(selected.topic.title, rules) !== undefined) return undefined;
  return { heading: selected.topic.title, body: bodyOf(copies) };
}

function nextStepSection(input: PersonalizationInput, who: Who, voice: Voice): Section | undefined {
  const action = input.page.actions[0];
  const heading = phrase(`${input.audience.id}:next`, NEXT_STEP_HEADINGS, who, voice);
  if (!action || !heading) return undefined;
  const purpose = action.purpose.trim().replace(/[.!]*$/, '');
  const sentence = purpose
    ? `${action.buttonTitle}: ${purpose.charAt(0).toLowerCase()}${purpose.slice(1)}.`
    : `${action.buttonTitle} when you are ready.`;
  return { heading, body: escapeMarkdown(sentence) };
}

function headlineOf(input: PersonalizationInput, who: Who, voice: Voice): string {
  const chosen = phrase(
    `${input.audience.id}:headline`,
    HEADLINES[input.page.pageType],
    who,
    voice,
    MAX_HEADLINE,
  );
  if (chosen) return chosen;
  return input.page.name.length <= MAX_HEADLINE
    ? input.page.name
    : `${input.page.name.slice(0, MAX_HEADLINE - 1)}…`;
}

/** A version of the page for the audience, from the topics selected for it. */
export function compose(
  input: PersonalizationInput,
  topics: SelectedTopic[],
  rules: CheckRules,
): VersionContent {
  const voice = voiceOf(input.brand);
  const who = whoOf(input, voice);
  const layout = LAYOUTS[input.page.pageType];
  const headline = headlineOf(input, who, voice);
  const subheadline = allowedCopy(subheadlineOf(input.page), rules, '', false);
  const points = layout.recap ? recapPoints(topics, rules) : new Map<TopicEntry, string>();
  const recap = recapSection(input.audience.id, [...points.values()], who, voice);
  const lead = recap ?? (layout.intro ? introSection(input, who, voice, rules, subheadline) : undefined);
  const next = layout.nextStep ? nextStepSection(input, who, voice) : undefined;
  const shown = new Set(recap ? points.keys() : []);
  const middle = topics
    .map((selected) => topicSection(selected, rules, shown))
    .filter((section): section is Section => section !== undefined)
    .slice(0, MAX_SECTIONS - (lead ? 1 : 0) - (next ? 1 : 0));
  const sections = [lead, ...middle, next].filter((section): section is Section => section !== undefined);
  return {
    headline,
    subheadline,
    sections,
    actions: actionsFor(input),
    metadata: metadataFor(input, headline, subheadline),
  };
}

/** A version's actions: the page's, each to the audience's URL when it overrides them. */
export function actionsFor(input: PersonalizationInput): VersionContent['actions'] {
  return input.page.actions.map((action) => ({
    actionId: action.actionId,
    buttonTitle: action.buttonTitle,
    purpose: action.purpose,
    url: input.audience.actionUrlOverride ?? action.url,
  }));
}

/** A version's metadata: the audience's effective metadata, titled and described as the version when it is not. */
export function metadataFor(
  input: PersonalizationInput,
  headline: string,
  subheadline: string,
): VersionContent['metadata'] {
  return {
    ...input.audience.metadata,
    title: input.audience.metadata?.title ?? headline,
    description: input.audience.metadata?.description ?? subheadline,
  };
}

/** The heading of the baseline's one section, the page's context: under the name, not repeating it. */
const BASELINE_SECTION = 'Overview';

/**
 * Version 0: the page as it is, for every visitor, and what a holdout is served. Its headline is the
 * page's name, as a generated version's falls back to (the title is for the browser's tab and
 * usually carries the brand after a bar).
 */
export function baselineContent(page: Page): VersionContent {
  const subheadline = subheadlineOf(page);
  const rest = allowedCopy(page.pageContext, { forbidden: [], foreignNames: [], actions: [] }, subheadline);
  return {
    headline: page.name,
    subheadline,
    sections: rest ? [{ heading: BASELINE_SECTION, body: rest }] : [],
    actions: page.actions.map((action) => ({
      actionId: action.actionId,
      buttonTitle: action.buttonTitle,
      purpose: action.purpose,
      url: action.url,
    })),
    metadata: page.metadata ?? {},
  };
}
