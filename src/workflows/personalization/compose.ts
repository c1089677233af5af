import { createHash } from 'node:crypto';
import type { VersionContent } from '../../resources/audiences/schema.ts';
import type { Brand } from '../../resources/brands/schema.ts';
import type { Page, PageType } from '../../resources/pages/schema.ts';
import {
  type CheckRules,
  MAX_HEADLINE,
  MAX_SECTIONS,
  MAX_SUBHEADLINE,
  plainProblems,
  privatePhrases,
  sentencesOf,
  shownProblems,
} from './check.ts';
import { mentionsAny, readGuidance } from './guidance.ts';
import type { PersonalizationInput } from './input.ts';
import {
  type Accepts,
  escapeMarkdown,
  markdownShown,
  markdownText,
  safeMarkdown,
  shownText,
} from './markdown.ts';
import { companyName, firstName } from './names.ts';
import type { Passage, PassageRules } from './passages.ts';
import { type ChosenSection, choosePassages, type Ranked } from './select.ts';
import { sendablePieces, unsendable } from './sendable.ts';

/**
 * The compose stage of the built-in personalizer: a hero that speaks to the visitor in a sentence
 * fitted to the page type and the audience (a person at an account, an account, anyone), then at
 * most four sections: the passages the ranking chose, the most relevant first, in their own words,
 * the page's context, and for the types that ask for one a next step. No sentence describes the
 * page or its making, none repeats the hero, and none says a word of the guidance, which decides
 * what is chosen and what comes first. Each wording has a few phrasings; which one an audience gets
 * is decided by a hash of its id, and turned by the variant, so that the next version of one
 * audience is an alternative. Everything written is held to the check's rules as it is written:
 * what would be refused is left out.
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

/** What composing one version works with. */
interface Writing {
  input: PersonalizationInput;
  who: Who;
  voice: Voice;
  /** The check's rules. */
  rules: CheckRules;
  /** Which alternative: 0 for an audience's first version, one more for each after. */
  variant: number;
  /** The subjects the guidance rules out. */
  excluded: string[][];
  /** Whether the guidance asks for a short page. */
  brief: boolean;
}

function speaks(text: string, voice: Voice): boolean {
  const padded = ` ${text.toLowerCase()} `;
  return !voice.avoid.some((word) => padded.includes(word));
}

/**
 * Whether a text (as a reader sees it) is one this audience's page may say: the check accepts it,
 * the voice speaks it, no sentence of it is one a marketer would not send, and it is not about a
 * subject the guidance rules out.
 */
function sendable(w: Writing, text: string, problems: string[]): boolean {
  return (
    problems.length === 0 &&
    speaks(text, w.voice) &&
    !sentencesOf(text).some(unsendable) &&
    !mentionsAny(text, w.excluded)
  );
}

function acceptsPlain(w: Writing): (text: string) => boolean {
  return (text) => sendable(w, text, plainProblems(text, w.rules));
}

/** Whether copy may be shown, by what a reader sees of it and the links it writes. */
function shows(w: Writing, rules = w.rules): PassageRules['shows'] {
  return (shown) => sendable(w, shown.text, shownProblems(shown, rules));
}

function accepts(w: Writing): Accepts {
  return (markdown) => shows(w)(markdownShown(markdown));
}

/** A link the page may keep: one to its actions; any other shows as its text. */
function actionLinks(w: Writing): (href: string) => boolean {
  const allowed = new Set(w.rules.actions.map((action) => action.url).filter(Boolean));
  return (href) => allowed.has(href);
}

/**
 * One phrasing for this audience and slot that fits; the same for one audience and variant, the
 * next one along for the next variant. Undefined when none fits.
 */
function phrase(
  w: Writing,
  slot: string,
  phrasings: Phrasing[],
  maxLength = Number.POSITIVE_INFINITY,
): string | undefined {
  const fitting = phrasings
    .map((phrasing) => phrasing(w.who))
    .filter((text): text is string => typeof text === 'string' && text.length > 0)
    .filter((text) => text.length <= maxLength && acceptsPlain(w)(text));
  if (fitting.length === 0) return undefined;
  return fitting[
    (stableIndex(`${w.input.audience.id}:${slot}`, fitting.length) + w.variant) % fitting.length
  ];
}

/** "Holiday readiness review for Northwind Grocers", unless the page's name has a "for" of its own. */
const pageFor = ({ page, company }: Who) => company && !/\bfor\b/i.test(page) && `${page} for ${company}`;

const HEADLINES: Record<PageType, Phrasing[]> = {
  inbound: [
    ({ first, brand, company }) =>
      first && brand && company && `${first}, see how ${brand} works for ${company}`,
    ({ brand, company }) => brand && company && `How ${brand} helps ${company}`,
    ({ brand, company }) => brand && company && `What ${brand} can do for ${company}`,
    (who) => !who.brand && pageFor(who),
    ({ page, company, brand }) => !brand && company && `For ${company}: ${page}`,
  ],
  outbound: [
    ({ first, company }) => first && company && `${first}, an idea for ${company}`,
    ({ first, brand }) => first && brand && `${first}, a note from ${brand}`,
    pageFor,
    ({ page, company, first }) => !first && company && `For ${company}: ${page}`,
  ],
  call_followup: [
    ({ first }) => first && `Following up on our conversation, ${first}`,
    ({ first }) => first && `${first}, picking up where we left off`,
    ({ company, first }) => !first && company && `Following up on our conversation with ${company}`,
    ({ company, first }) => !first && company && `${company}: picking up where we left off`,
    ({ first, company }) => !first && !company && 'Following up on our conversation',
  ],
  sales_deck: [
    ({ brand, company }) => brand && company && `${brand} for ${company}`,
    ({ company }) => company && `A proposal for ${company}`,
    ({ brand, company }) => brand && company && `${company} and ${brand}: the plan`,
    pageFor,
  ],
  custom: [pageFor, ({ page, company }) => company && `For ${company}: ${page}`],
};

/** A follow-up's subheadline opens by thanking the visitor for the conversation (the headline names them). */
const THANKS: Phrasing[] = [
  () => 'Thank you for your time.',
  () => 'Thank you for the conversation.',
  ({ company }) => company && `It was good to talk with the team at ${company}.`,
];

const INTRO_HEADINGS: Record<PageType, Phrasing[]> = {
  inbound: [
    ({ brand, company }) => brand && company && `What ${brand} does for ${company}`,
    ({ company }) => company && `For the team at ${company}`,
    ({ company }) => company && `What it means for ${company}`,
    ({ company }) => !company && 'What you get',
    ({ company }) => !company && 'The short version',
  ],
  outbound: [
    () => 'Why we are reaching out',
    ({ company }) => company && `Why now for ${company}`,
    () => 'What you get',
  ],
  call_followup: [() => 'In short', () => 'The short version'],
  sales_deck: [({ brand }) => brand && `What ${brand} does`, () => 'The short version', () => 'How it works'],
  custom: [() => 'Overview', () => 'In short'],
};

/** An intro's heading when none of its type's fits (a company whose name the check refuses). */
const INTRO_FALLBACKS: Phrasing[] = [() => 'In short', () => 'Overview'];

const NEXT_STEP_HEADINGS: Phrasing[] = [() => 'Next step', () => 'What happens next', () => 'Your next step'];

/**
 * Where each kind of page puts its context (`lead`: a place of its own, after a passage the
 * guidance chose; `filler`: after the passages, where they leave room) and whether it ends with a
 * next step. A follow-up gives its room to what the conversation was about.
 */
const LAYOUTS: Record<PageType, { intro: 'lead' | 'filler'; nextStep: boolean }> = {
  inbound: { intro: 'lead', nextStep: false },
  outbound: { intro: 'lead', nextStep: true },
  call_followup: { intro: 'filler', nextStep: true },
  sales_deck: { intro: 'lead', nextStep: true },
  custom: { intro: 'lead', nextStep: false },
};

/** A short page (the guidance asks for one): this many sections of passages, one passage each. */
const BRIEF_SECTIONS = 2;
/** How many passages one section shows. */
const PASSAGES_PER_SECTION = 2;

function writing(input: PersonalizationInput, rules: CheckRules, variant: number): Writing {
  const voice = voiceOf(input.brand);
  const guidance = readGuidance(input);
  return {
    input,
    who: {
      first: input.person && !voice.formal ? firstName(input.person.name) : undefined,
      company: input.account ? companyName(input.account) : undefined,
      brand: input.brand?.name,
      page: input.page.name,
    },
    voice,
    rules,
    variant,
    excluded: guidance.excluded,
    brief: guidance.brief,
  };
}

/** What the built-in personalizer keeps of the knowledge for this audience: the passages' rules. */
export function passageRules(input: PersonalizationInput, rules: CheckRules): PassageRules {
  const w = writing(input, rules, 0);
  // The knowledge may say what the private guidance says; the page never repeats it from there.
  const strict = { ...rules, forbidden: [...rules.forbidden, ...privatePhrases(input)] };
  return { allowLink: actionLinks(w), shows: shows(w, strict) };
}

/** Plain text with only the sentences that may be shown; empty when those are not accepted together. */
function acceptedPlain(w: Writing, text: string): string {
  const kept = sentencesOf(text).filter(sendablePieces(text)).filter(acceptsPlain(w)).join(' ');
  return acceptsPlain(w)(kept) ? kept : '';
}

/** The page's own line under the headline: its description, else the first sentence of its context. */
function pageLine(page: Page): string {
  return page.metadata?.description?.trim() || sentencesOf(page.pageContext)[0] || '';
}

/**
 * The hero's line: the page's description, else (when it has none, or none that may be shown) the
 * first sentence of its context.
 */
function heroLine(w: Writing): string {
  const { page } = w.input;
  const description = acceptedPlain(w, page.metadata?.description?.trim() ?? '');
  return description || acceptedPlain(w, sentencesOf(page.pageContext)[0] ?? '');
}

/** Plain text as page copy in the safe subset, less the sentence `except` and what `accepted` refuses. */
function plainCopy(text: string, except: string, accepted: Accepts = () => true): string {
  return safeMarkdown(
    escapeMarkdown(text),
    () => false,
    (md) => markdownText(md) !== except && accepted(md),
  );
}

interface Section {
  heading: string;
  body: string;
}

function introSection(w: Writing, except: string): Section | undefined {
  const sendable = sendablePieces(w.input.page.pageContext);
  const body = plainCopy(
    w.input.page.pageContext,
    except,
    (md) => sendable(markdownText(md)) && accepts(w)(md),
  );
  const heading =
    phrase(w, 'intro', INTRO_HEADINGS[w.input.page.pageType]) ?? phrase(w, 'intro', INTRO_FALLBACKS);
  return body && heading ? { heading, body } : undefined;
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

/** A passage's heading as the page shows it: the one its entry writes, else its topic's title. */
function headingOf(w: Writing): (passage: Passage) => string | undefined {
  return (passage) => {
    const heading = shownText(passage.heading ?? passage.topic.title)
      .replace(/\s+/g, ' ')
      .trim();
    return heading && acceptsPlain(w)(heading) ? heading : undefined;
  };
}

const LIST_MARKER = /^(?:[-*+]|\d+\.)\s+/;

/** A section's passages as its body: a list when there are several short ones, else paragraphs. */
function bodyOf(copies: string[]): string {
  if (copies.length > 1 && copies.every((copy) => !copy.includes('\n') && copy.length <= 280)) {
    return copies.map((copy) => `- ${copy.replace(LIST_MARKER, '')}`).join('\n');
  }
  return copies.join('\n\n');
}

function passageSection(chosen: ChosenSection): Section {
  return { heading: chosen.heading, body: bodyOf(chosen.passages.map(({ copy }) => copy)) };
}

/** A section the check accepts as a whole (its parts were accepted one by one). */
function acceptedSection(w: Writing, section: Section | undefined): section is Section {
  return section !== undefined && acceptsPlain(w)(section.heading) && accepts(w)(section.body);
}

function headlineOf(w: Writing): string {
  const chosen = phrase(w, 'headline', HEADLINES[w.input.page.pageType], MAX_HEADLINE);
  if (chosen) return chosen;
  const { name } = w.input.page;
  return name.length <= MAX_HEADLINE ? name : `${name.slice(0, MAX_HEADLINE - 1)}…`;
}

/** The hero's second line: the page's own line, opened on a follow-up by thanks for the conversation. */
function subheadlineOf(w: Writing, line: string): string {
  const thanks = w.input.page.pageType === 'call_followup' ? (phrase(w, 'thanks', THANKS) ?? '') : '';
  const whole = [thanks, line].filter(Boolean).join(' ');
  const fits = (text: string) => text.length <= MAX_SUBHEADLINE && acceptsPlain(w)(text);
  return [whole, line, thanks].find(fits) ?? '';
}

/**
 * A version of the page for the audience, from its knowledge ranked for it (`ranked`, most relevant
 * first); `variant` makes an alternative to the versions before it. A passage the guidance chose
 * opens the page, before the page's own context.
 */
export function compose(
  input: PersonalizationInput,
  ranked: Ranked[],
  rules: CheckRules,
  variant = 0,
): VersionContent {
  const w = writing(input, rules, variant);
  const layout = LAYOUTS[input.page.pageType];
  const headline = headlineOf(w);
  const line = heroLine(w);
  const subheadline = subheadlineOf(w, line);
  const intro = introSection(w, line);
  const next = layout.nextStep ? nextStepSection(w) : undefined;
  const reserved = (layout.intro === 'lead' && intro ? 1 : 0) + (next ? 1 : 0);
  const chosenSections = choosePassages(ranked, {
    sections: Math.min(MAX_SECTIONS - reserved, w.brief ? BRIEF_SECTIONS : MAX_SECTIONS),
    perSection: w.brief ? 1 : PASSAGES_PER_SECTION,
    variant,
    shown: [headline, subheadline, markdownText(intro?.body ?? '')],
    headingOf: headingOf(w),
  });
  const guidedFirst = chosenSections[0]?.passages[0]?.guided === true;
  const chosen = chosenSections.map(passageSection);
  const [first, ...rest] = chosen;
  const withIntro =
    layout.intro === 'filler'
      ? [...chosen, chosen.length + (next ? 1 : 0) < MAX_SECTIONS ? intro : undefined]
      : guidedFirst
        ? [first, intro, ...rest]
        : [intro, ...chosen];
  const sections = [...withIntro, next].filter((section) => acceptedSection(w, section));
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
