import { createHash } from 'node:crypto';
import type { VersionContent } from '../../resources/audiences/schema.ts';
import type { Brand } from '../../resources/brands/schema.ts';
import type { Page, PageType } from '../../resources/pages/schema.ts';
import type { Topic, TopicEntry } from '../../resources/topics/schema.ts';
import {
  type CheckRules,
  MAX_HEADLINE,
  MAX_SECTIONS,
  MAX_SUBHEADLINE,
  markdownProblems,
  plainProblems,
  sentencesOf,
} from './check.ts';
import type { PersonalizationInput } from './input.ts';
import { type Accepts, escapeMarkdown, markdownText, safeMarkdown, shownText } from './markdown.ts';
import { companyName, firstName } from './names.ts';
import type { SelectedTopic } from './select.ts';

/**
 * The compose stage of the built-in personalizer: a layout per page type (hero, at most four
 * sections, the page's actions, metadata), written in sentences that fit the audience (a person at
 * an account, an account, anyone) and led by what its guidance is about. Each wording has a few
 * phrasings; which one an audience gets is decided by a hash of its id, so that one page's
 * audiences do not read as one template, and turned by the variant, so that the next version of
 * one audience is an alternative. Everything written is held to the check's rules as it is
 * written: what would be refused is left out.
 */

/** Who a page speaks to and on whose behalf, as far as known, and what it leads with. */
interface Who {
  first?: string;
  company?: string;
  brand?: string;
  page: string;
  /** The names of the topics the page leads with ("Pilots and Markdown forecasting"). */
  focus?: string;
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

/** What composing one version works with. */
interface Writing {
  input: PersonalizationInput;
  who: Who;
  voice: Voice;
  rules: CheckRules;
  /** Which alternative: 0 for an audience's first version, one more for each after. */
  variant: number;
  /** Each entry's copy once made: a recap and a section may both ask for it. */
  copies: Map<TopicEntry, string | undefined>;
}

function speaks(text: string, voice: Voice): boolean {
  const padded = ` ${text.toLowerCase()} `;
  return !voice.avoid.some((word) => padded.includes(word));
}

/**
 * One phrasing for this audience and slot, that the voice speaks and the check accepts; the same
 * for one audience and variant, the next one along for the next variant. Undefined when none fits.
 */
function phrase(
  w: Writing,
  slot: string,
  phrasings: Phrasing[],
  { who = w.who, maxLength = Number.POSITIVE_INFINITY }: { who?: Who; maxLength?: number } = {},
): string | undefined {
  const fitting = phrasings
    .map((phrasing) => phrasing(who))
    .filter((text): text is string => typeof text === 'string' && text.length > 0)
    .filter(
      (text) =>
        text.length <= maxLength && speaks(text, w.voice) && plainProblems(text, w.rules).length === 0,
    );
  if (fitting.length === 0) return undefined;
  return fitting[
    (stableIndex(`${w.input.audience.id}:${slot}`, fitting.length) + w.variant) % fitting.length
  ];
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

/**
 * The hero's second sentence, naming what the page leads with (`focus`: topic names, never the
 * guidance's words) for this audience. A follow-up says it is what the conversation was about.
 */
const FOCUS_LINES: Record<PageType, Phrasing[]> = {
  inbound: [
    ({ focus, company }) => focus && company && `Chosen for ${company}: ${focus}.`,
    ({ focus, company }) => focus && company && `For ${company}, this page starts with ${focus}.`,
    ({ focus, company }) => focus && !company && `This page starts with ${focus}.`,
  ],
  outbound: [
    ({ focus, company }) => focus && company && `We picked ${focus} for ${company}.`,
    ({ focus, first }) => focus && first && `${first}, we put ${focus} first for you.`,
    ({ focus, company }) => focus && !company && `We put ${focus} first.`,
  ],
  call_followup: [
    ({ focus }) => focus && `As promised, here is more on ${focus}.`,
    ({ focus }) => focus && `Here is more on ${focus}, as we discussed.`,
    ({ focus, first }) => focus && first && `${first}, here is more on ${focus}.`,
  ],
  sales_deck: [
    ({ focus, company }) => focus && company && `The plan for ${company} starts with ${focus}.`,
    ({ focus, company }) => focus && company && `For ${company}: ${focus} first.`,
    ({ focus, company }) => focus && !company && `The plan starts with ${focus}.`,
  ],
  custom: [
    ({ focus, company }) => focus && company && `For ${company}: ${focus}.`,
    ({ focus, company }) => focus && !company && `Starting with ${focus}.`,
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

const RECAP_LEADS: Phrasing[] = [
  ({ first }) =>
    `${first ? `Thank you for the conversation, ${first}.` : 'Thank you for the conversation.'} Here is more on what we covered:`,
  () => 'Thank you for your time. Here is more on what we covered:',
  ({ company }) =>
    company && `It was good to talk with the team at ${company}. Here is more on what we covered:`,
];

/** What each kind of page has beside its lead (a recap, else the page's context) and its topics. */
const LAYOUTS: Record<PageType, { recap: boolean; nextStep: boolean }> = {
  inbound: { recap: false, nextStep: false },
  outbound: { recap: false, nextStep: true },
  call_followup: { recap: true, nextStep: true },
  sales_deck: { recap: false, nextStep: true },
  custom: { recap: false, nextStep: false },
};

function writing(input: PersonalizationInput, rules: CheckRules, variant: number): Writing {
  const voice = voiceOf(input.brand);
  const who = {
    first: input.person && !voice.formal ? firstName(input.person.name) : undefined,
    company: input.account ? companyName(input.account) : undefined,
    brand: input.brand?.name,
    page: input.page.name,
  };
  return { input, who, voice, rules, variant, copies: new Map() };
}

/** The page's own line under its name: its description, else the first sentence of its context. */
function pageLine(page: Page): string {
  return page.metadata?.description?.trim() || sentencesOf(page.pageContext)[0] || '';
}

/** Plain text with only the sentences the check accepts; empty when those are not accepted together. */
function acceptedPlain(w: Writing, text: string): string {
  const accepted = (part: string) => plainProblems(part, w.rules).length === 0;
  const kept = sentencesOf(text).filter(accepted).join(' ');
  return accepted(kept) ? kept : '';
}

function accepts(w: Writing): Accepts {
  return (markdown) => markdownProblems(markdown, w.rules).length === 0;
}

/** A link the page may keep: one to its actions; any other shows as its text. */
function actionLinks(w: Writing): (href: string) => boolean {
  const allowed = new Set(w.rules.actions.map((action) => action.url).filter(Boolean));
  return (href) => allowed.has(href);
}

/** Plain text as page copy in the safe subset, less the sentence `except` and what `accepted` refuses. */
function plainCopy(text: string, except: string, accepted: Accepts = () => true): string {
  return safeMarkdown(
    escapeMarkdown(text),
    () => false,
    (md) => markdownText(md) !== except && accepted(md),
  );
}

/** An entry as page copy, read as the safe subset whatever its type; undefined when nothing of it may be shown. */
function entryCopy(w: Writing, entry: TopicEntry): string | undefined {
  if (!w.copies.has(entry)) {
    const copy = safeMarkdown(entry.content.content, actionLinks(w), accepts(w));
    w.copies.set(entry, copy && accepts(w)(copy) ? copy : undefined);
  }
  return w.copies.get(entry);
}

/** A topic's title as a heading: its text on one line, undefined when the check refuses it. */
function headingOf(w: Writing, topic: Topic): string | undefined {
  const heading = shownText(topic.title).replace(/\s+/g, ' ').trim();
  return heading && plainProblems(heading, w.rules).length === 0 ? heading : undefined;
}

const LIST_MARKER = /^(?:[-*+]|\d+\.)\s+/;

/** A topic's entries as a section body: a list when there are several short ones, else paragraphs. */
function bodyOf(copies: string[]): string {
  if (copies.length > 1 && copies.every((copy) => !copy.includes('\n') && copy.length <= 280)) {
    return copies.map((copy) => `- ${copy.replace(LIST_MARKER, '')}`).join('\n');
  }
  return copies.join('\n\n');
}

/** An entry's copy as its first line (a recap's point) and the rest, each as copy of its own. */
function firstLine(copy: string): { point: string; rest: string } {
  const [first = '', ...others] = copy.split('\n');
  const rest = others.join('\n').trim();
  return {
    point: first.replace(LIST_MARKER, ''),
    rest: rest.includes('\n') ? rest : rest.replace(LIST_MARKER, ''),
  };
}

interface Section {
  heading: string;
  body: string;
}

/** A section showing a topic, with the topic. */
interface TopicSection {
  section: Section;
  selected: SelectedTopic;
}

/** A follow-up's recap: the first line of each topic's best entry, as what the conversation covered. */
interface Recap {
  section: Section;
  topics: SelectedTopic[];
  /** What is left of the entries it drew on, for their topics' sections. */
  rest: Map<TopicEntry, string>;
}

function introSection(w: Writing, except: string): Section | undefined {
  const body = plainCopy(w.input.page.pageContext, except, accepts(w));
  const heading = phrase(w, 'intro', INTRO_HEADINGS[w.input.page.pageType]);
  return body && heading ? { heading, body } : undefined;
}

function recapOf(w: Writing, topics: SelectedTopic[]): Recap | undefined {
  const points = topics.flatMap((selected) =>
    selected.entries.slice(0, 1).flatMap((entry) => {
      const copy = entryCopy(w, entry);
      return copy ? [{ selected, entry, ...firstLine(copy) }] : [];
    }),
  );
  const lead = phrase(w, 'recap-opening', RECAP_LEADS);
  const heading = phrase(w, 'recap', INTRO_HEADINGS.call_followup);
  if (points.length === 0 || !lead || !heading) return undefined;
  const lines = points.map((point) => `- ${point.point}`).join('\n');
  return {
    section: { heading, body: `${escapeMarkdown(lead)}\n\n${lines}` },
    topics: points.map((point) => point.selected),
    rest: new Map(points.map((point) => [point.entry, point.rest])),
  };
}

/** A topic's section, of its entries (what a recap left of them); undefined when nothing is left to show. */
function topicSection(
  w: Writing,
  selected: SelectedTopic,
  recapped: Map<TopicEntry, string>,
): TopicSection | undefined {
  const heading = headingOf(w, selected.topic);
  const copies = selected.entries
    .map((entry) => (recapped.has(entry) ? recapped.get(entry) : entryCopy(w, entry)))
    .filter((copy): copy is string => Boolean(copy));
  return heading && copies.length > 0 ? { section: { heading, body: bodyOf(copies) }, selected } : undefined;
}

function nextStepSection(w: Writing): Section | undefined {
  const action = w.input.page.actions[0];
  const heading = phrase(w, 'next', NEXT_STEP_HEADINGS);
  if (!action || !heading) return undefined;
  const purpose = action.purpose.trim().replace(/[.!]*$/, '');
  const sentence = purpose
    ? `${action.buttonTitle}: ${purpose.charAt(0).toLowerCase()}${purpose.slice(1)}.`
    : `${action.buttonTitle} when you are ready.`;
  const body = escapeMarkdown(sentence);
  return accepts(w)(body) ? { heading, body } : undefined;
}

/** A section the check accepts as a whole (its parts were accepted one by one). */
function acceptedSection(w: Writing, section: Section | undefined): section is Section {
  return (
    section !== undefined && plainProblems(section.heading, w.rules).length === 0 && accepts(w)(section.body)
  );
}

function headlineOf(w: Writing): string {
  const chosen = phrase(w, 'headline', HEADLINES[w.input.page.pageType], { maxLength: MAX_HEADLINE });
  if (chosen) return chosen;
  const { name } = w.input.page;
  return name.length <= MAX_HEADLINE ? name : `${name.slice(0, MAX_HEADLINE - 1)}…`;
}

/** How many topics the hero names as what the page leads with. */
const FOCUS_TOPICS = 2;

/**
 * What the page leads with, by name: the topics the guidance chose, of those shown, first chosen
 * first; else, for someone (a person, an account), the first topic shown; for anyone without
 * guidance, nothing.
 */
function focusOf(w: Writing, shown: SelectedTopic[]): string | undefined {
  const guided = shown.filter((selected) => selected.guided);
  const someone = w.input.person !== null || w.input.account !== null;
  const named = guided.length > 0 ? guided.slice(0, FOCUS_TOPICS) : someone ? shown.slice(0, 1) : [];
  const names = [
    ...new Set(named.map((selected) => headingOf(w, selected.topic)).filter((name) => name !== undefined)),
  ];
  return names.length > 0 ? names.join(' and ') : undefined;
}

/**
 * The hero's second line: the page's own line with a sentence naming what the page leads with for
 * this audience (first on a follow-up, which it recaps), or as much of that as fits and passes.
 */
function subheadlineOf(w: Writing, line: string, focus: string | undefined): string {
  const own = acceptedPlain(w, line);
  const lead = phrase(w, 'focus', FOCUS_LINES[w.input.page.pageType], { who: { ...w.who, focus } }) ?? '';
  const parts = w.input.page.pageType === 'call_followup' ? [lead, own] : [own, lead];
  const whole = parts.filter(Boolean).join(' ');
  const fits = (text: string) => text.length <= MAX_SUBHEADLINE && plainProblems(text, w.rules).length === 0;
  return [whole, lead, own].find(fits) ?? '';
}

/** The topics in an alternative's order: the first stays first (guidance chose it), the rest turn by the variant. */
function alternativeOrder(topics: SelectedTopic[], variant: number): SelectedTopic[] {
  const [first, ...rest] = topics;
  if (!first) return [];
  const turn = rest.length > 0 ? variant % rest.length : 0;
  return [first, ...rest.slice(turn), ...rest.slice(0, turn)];
}

/**
 * A version of the page for the audience, from the topics selected for it; `variant` makes an
 * alternative to the versions before it. A topic the guidance chose comes before the page's own
 * context; a follow-up opens with the recap of what was covered.
 */
export function compose(
  input: PersonalizationInput,
  topics: SelectedTopic[],
  rules: CheckRules,
  variant = 0,
): VersionContent {
  const w = writing(input, rules, variant);
  const layout = LAYOUTS[input.page.pageType];
  const arranged = alternativeOrder(topics, variant);
  const recap = layout.recap ? recapOf(w, arranged) : undefined;
  const line = pageLine(input.page);
  const intro = recap ? undefined : introSection(w, line);
  const next = layout.nextStep ? nextStepSection(w) : undefined;
  const recapped = recap?.rest ?? new Map<TopicEntry, string>();
  const room = MAX_SECTIONS - (recap || intro ? 1 : 0) - (next ? 1 : 0);
  const placed = arranged
    .map((selected) => topicSection(w, selected, recapped))
    .filter((topicSection): topicSection is TopicSection => topicSection !== undefined)
    .slice(0, room);
  const [first, ...rest] = placed.map((topicSection) => topicSection.section);
  const leadsWithTopic = !recap && placed[0]?.selected.guided === true;
  const opening = leadsWithTopic ? [first, intro] : [recap?.section ?? intro, first];
  const sections = [...opening, ...rest, next].filter((section) => acceptedSection(w, section));
  const focus = focusOf(w, [
    ...(recap?.topics ?? []),
    ...placed.map((topicSection) => topicSection.selected),
  ]);
  const headline = headlineOf(w);
  const subheadline = subheadlineOf(w, line, focus);
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
  const subheadline = pageLine(page);
  const rest = plainCopy(page.pageContext, subheadline);
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
