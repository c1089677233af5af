import MiniSearch from 'minisearch';
import type { PageType } from '../../resources/pages/schema.ts';
import { readGuidance } from './guidance.ts';
import type { PersonalizationInput } from './input.ts';
import { markdownText } from './markdown.ts';
import { companyName } from './names.ts';
import type { Passage } from './passages.ts';
import { sharedWith, termsOf } from './terms.ts';

/**
 * The select stage: the knowledge's passages ranked by relevance to this page and this audience,
 * then chosen one by one for the page's sections. Ranking is BM25+ (MiniSearch) of each passage (its
 * text, its heading and topic title, its topic's purpose) against one weighted query: the words of
 * the page, of its type, of the audience's company, and of the audience's guidance, which weigh most.
 */

/** A passage's relevance to the page and the audience. */
export interface Ranked {
  passage: Passage;
  score: number;
  /** It matched a word of the guidance: the guidance chose it. */
  guided: boolean;
}

/** What each kind of page tends to need, so that passages about it rank higher there. */
const PAGE_TYPE_TERMS: Record<PageType, string> = {
  inbound: 'how it works overview platform features',
  outbound: 'results customers proof review offer',
  call_followup: 'pilot trial next steps results questions',
  sales_deck: 'price prices pricing plans cost results customers proof rollout',
  custom: '',
};

/**
 * Ranking weighs three questions, each answered by its own BM25+ search and scaled to its best
 * passage (1): how much a passage is about the page (its name, title and description; its context
 * and its type's words half as much), about the audience's company, and about the audience's
 * guidance. The guidance weighs most: it is what sets one audience's page apart from another's of
 * the same page, so the passage that answers it best comes first.
 */
export const RANKING_WEIGHTS = { guidance: 2, page: 1, company: 0.5 } as const;

/** Within the page's search, how much each of its texts' words weigh (a word in several adds them). */
export const PAGE_WEIGHTS = { nameTitleDescription: 1, context: 0.5, pageType: 0.5 } as const;

/** Where a query word is found in a passage: its heading (or its topic's title) says most of what it is about. */
export const FIELD_BOOSTS = { text: 1, heading: 2, purpose: 0.5 } as const;

/** A passage far less relevant than the best one is not chosen: a page says what matters to its reader. */
export const RELATIVE_SCORE_KEPT = 0.3;

/** A passage whose words are this much in a text already shown says it again. */
const NEAR_DUPLICATE = 0.6;

type Query = Map<string, number>;

function weighted(sources: [string, number][]): Query {
  const query: Query = new Map();
  for (const [text, weight] of sources) {
    for (const term of new Set(termsOf(text))) query.set(term, (query.get(term) ?? 0) + weight);
  }
  return query;
}

function pageQuery(input: PersonalizationInput): Query {
  const { page } = input;
  return weighted([
    [[page.name, page.title, page.metadata?.description ?? ''].join('\n'), PAGE_WEIGHTS.nameTitleDescription],
    [page.pageContext, PAGE_WEIGHTS.context],
    [PAGE_TYPE_TERMS[page.pageType], PAGE_WEIGHTS.pageType],
  ]);
}

type Index = MiniSearch<{ id: number; text: string; heading: string; purpose: string }>;

function indexOf(passages: Passage[]): Index {
  const index: Index = new MiniSearch({
    fields: ['text', 'heading', 'purpose'],
    tokenize: termsOf,
    processTerm: (term) => term,
  });
  index.addAll(
    passages.map((passage, id) => ({
      id,
      text: passage.text,
      heading: [passage.heading ?? '', passage.topic.title].join('\n'),
      purpose: passage.topic.purpose,
    })),
  );
  return index;
}

/** Each passage's BM25+ score for a query, scaled to the best passage's (1); absent when it matches nothing. */
function scaledScores(index: Index, query: Query): Map<number, number> {
  if (query.size === 0) return new Map();
  const results = index.search([...query.keys()].join(' '), {
    tokenize: (text) => text.split(' '),
    boost: { ...FIELD_BOOSTS },
    boostTerm: (term) => query.get(term) ?? 0,
  });
  // MiniSearch multiplies the sum by how many query words matched; the sum alone is BM25+, so that
  // a passage that repeats many of the page's own words does not outrank one that says more.
  const sums = results.map(
    (result) => [result.id as number, result.score / result.queryTerms.length] as const,
  );
  const best = Math.max(0, ...sums.map(([, sum]) => sum));
  return new Map(best > 0 ? sums.map(([id, sum]) => [id, sum / best]) : []);
}

/**
 * Every passage that matches the page or the audience, most relevant first (a tie goes to the
 * knowledge's order). The same input always ranks the same.
 */
export function rankPassages(input: PersonalizationInput, passages: Passage[]): Ranked[] {
  if (passages.length === 0) return [];
  const index = indexOf(passages);
  const page = scaledScores(index, pageQuery(input));
  const company = scaledScores(index, weighted(input.account ? [[companyName(input.account), 1]] : []));
  const guidance = scaledScores(index, readGuidance(input).steering);
  return passages
    .map((passage, id) => ({
      passage,
      score:
        RANKING_WEIGHTS.page * (page.get(id) ?? 0) +
        RANKING_WEIGHTS.company * (company.get(id) ?? 0) +
        RANKING_WEIGHTS.guidance * (guidance.get(id) ?? 0),
      guided: guidance.has(id),
    }))
    .filter((ranked) => ranked.score > 0)
    .sort((a, b) => b.score - a.score || a.passage.order - b.passage.order);
}

/** The passages worth choosing from, most relevant first: none far below the best. */
export function relevant(ranked: Ranked[]): Ranked[] {
  const best = ranked[0]?.score ?? 0;
  return ranked.filter((candidate) => candidate.score > 0 && candidate.score >= best * RELATIVE_SCORE_KEPT);
}

/**
 * When nothing in the knowledge matches the page or the audience, the default topic's passages (or
 * those of the first topic that has any) stand in, so that a page is never bare.
 */
export function standIns(passages: Passage[]): Ranked[] {
  const standIn =
    passages.find((passage) => passage.topic.isDefault)?.topic ?? passages[0]?.topic ?? undefined;
  return passages
    .filter((passage) => passage.topic === standIn)
    .map((passage) => ({ passage, score: 0, guided: false }));
}

/** A passage chosen for a section, with its copy. */
export interface Chosen extends Ranked {
  copy: string;
}

/** A section of passages under one heading (the passages' own, else their topic's title). */
export interface ChosenSection {
  heading: string;
  passages: Chosen[];
}

export interface Choice {
  /** How many sections of passages the page has room for. */
  sections: number;
  /** How many passages one section shows. */
  perSection: number;
  /** Which alternative: 0 for an audience's first version, one more for each after. */
  variant: number;
  /** What the page shows already (its hero, its context): a passage saying it again is not chosen. */
  shown: string[];
  /** A passage's heading as the page may show it; undefined when it may not, and the passage is not chosen. */
  headingOf: (passage: Passage) => string | undefined;
}

/** The first stays first (the ranking, and so the guidance, chose it); the rest turn by the variant. */
function alternativeOrder(ranked: Ranked[], variant: number): Ranked[] {
  const [first, ...rest] = ranked;
  if (!first) return [];
  const turn = rest.length > 0 ? variant % rest.length : 0;
  return [first, ...rest.slice(turn), ...rest.slice(0, turn)];
}

/**
 * The page's sections of passages, chosen one by one down the ranking: a passage joins the section
 * of its heading while that has room, else opens the next section while the page has room; a
 * passage with nothing it may show, or that says again what is shown, is passed over. For version 1
 * each section opens with the best-ranked passage not yet chosen under a new heading; each version
 * after keeps the first and turns the rest, so that generating again makes an alternative.
 */
export function choosePassages(ranked: Ranked[], choice: Choice): ChosenSection[] {
  const sections: ChosenSection[] = [];
  const shown = [...choice.shown];
  for (const candidate of alternativeOrder(ranked, choice.variant)) {
    if (
      sections.length >= choice.sections &&
      sections.every((each) => each.passages.length >= choice.perSection)
    )
      break;
    const heading = choice.headingOf(candidate.passage);
    const section = sections.find((each) => each.heading === heading);
    if (
      !heading ||
      (section ? section.passages.length >= choice.perSection : sections.length >= choice.sections)
    )
      continue;
    const copy = candidate.passage.copy();
    if (!copy) continue;
    const text = markdownText(copy);
    if (shown.some((other) => sharedWith(text, other) >= NEAR_DUPLICATE)) continue;
    if (section) section.passages.push({ ...candidate, copy });
    else sections.push({ heading, passages: [{ ...candidate, copy }] });
    shown.push(text);
  }
  return sections;
}
