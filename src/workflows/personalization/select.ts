import MiniSearch from 'minisearch';
import type { PageType } from '../../resources/pages/schema.ts';
import type { Topic, TopicEntry } from '../../resources/topics/schema.ts';
import { sentencesOf } from './check.ts';
import type { PersonalizationInput } from './input.ts';
import { shownText } from './markdown.ts';

/** A topic chosen for a version, with the entries of it worth showing, most relevant first. */
export interface SelectedTopic {
  topic: Topic;
  entries: TopicEntry[];
  /** Chosen for what sets the audience apart (its guidance, its company), not for the page alone. */
  guided: boolean;
}

/** Words every text has: they say nothing of relevance. */
const STOP_WORDS = new Set(
  `a about after all also an and any are as at be been but by can could did do does for from had has
  have how i if in into is it its just may more most much must no not of on only or our out over own
  per so some such than that the their them then there these they this those through to too under up
  us very was we were what when where which while who why will with would you your yours`.split(/\s+/),
);

/** What each kind of page tends to need, so that entries about it rank higher there. */
const PAGE_TYPE_TERMS: Record<PageType, string> = {
  inbound: 'how it works overview platform features',
  outbound: 'results customers proof review offer',
  call_followup: 'pilot trial next steps results questions',
  sales_deck: 'price prices pricing plans cost results customers proof rollout',
  custom: '',
};

/**
 * What sets one audience's page apart weighs more than what every audience of the page shares:
 * the page's own words would otherwise pick the same entries for everyone.
 */
const AUDIENCE_WEIGHT = 2;
const PAGE_WEIGHT = 1;

/** An entry a little less relevant than its topic's best still earns a place beside it. */
const RELATIVE_SCORE_KEPT = 0.35;
/** A topic far less relevant than the best one is left out: a page says what matters to its reader. */
const RELATIVE_TOPIC_KEPT = 0.4;
/** A topic that matches one of the audience's concerns this well (against that concern's best match) answers it. */
const RELATIVE_GUIDED = 0.4;
const ENTRIES_PER_TOPIC = 3;

function processTerm(term: string): string | null {
  const word = term.toLowerCase();
  return word.length < 2 || STOP_WORDS.has(word) ? null : word;
}

/** What the page is about, for every audience of it: the page itself and its type. */
function pageQuery(input: PersonalizationInput): string {
  const { page } = input;
  return [page.name, page.pageContext, page.metadata?.description, PAGE_TYPE_TERMS[page.pageType]]
    .filter(Boolean)
    .join('\n');
}

/**
 * What is particular to this audience, a concern at a time: its company, and each sentence of its
 * private guidance (which steers what is chosen but is never shown). Each is searched on its own, so
 * that a guidance that names two concerns has both answered, not only the one with more words.
 */
function audienceClauses(input: PersonalizationInput): string[] {
  return [
    input.account?.name ?? '',
    ...sentencesOf(input.private.context),
    ...input.private.notes.flatMap(sentencesOf),
  ].filter((clause) => clause.trim() !== '');
}

/** Each entry's score for a query, scaled to the best match (1). */
function scoresFor(index: MiniSearch, query: string): Map<string, number> {
  const results = query
    ? index.search(query, { boost: { title: 1.5, purpose: 0.5 }, prefix: true, fuzzy: 0.1 })
    : [];
  const best = results[0]?.score ?? 1;
  return new Map(results.map((result) => [String(result.id), result.score / best]));
}

interface Ranked extends SelectedTopic {
  /** The best of its entries, page and audience together. */
  best: number;
  /** How much of the audience's concerns it answers: its best match to each, summed. */
  answers: number;
}

function rankTopic(topic: Topic, page: Map<string, number>, clauses: Map<string, number>[]): Ranked {
  const scoreIn = (scores: Map<string, number>, entry: TopicEntry) => scores.get(entry.topicEntryId) ?? 0;
  const scored = topic.entries
    .map((entry) => {
      const forAudience = Math.max(0, ...clauses.map((scores) => scoreIn(scores, entry)));
      return { entry, score: PAGE_WEIGHT * scoreIn(page, entry) + AUDIENCE_WEIGHT * forAudience };
    })
    .filter((candidate) => candidate.score > 0)
    .sort((a, b) => b.score - a.score);
  const best = scored[0]?.score ?? 0;
  const entries = scored
    .filter((candidate) => candidate.score >= best * RELATIVE_SCORE_KEPT)
    .slice(0, ENTRIES_PER_TOPIC)
    .map((candidate) => candidate.entry);
  const perClause = clauses.map((scores) =>
    Math.max(0, ...topic.entries.map((entry) => scoreIn(scores, entry))),
  );
  const guided = perClause.some((score) => score >= RELATIVE_GUIDED);
  return { topic, entries, best, answers: perClause.reduce((sum, score) => sum + score, 0), guided };
}

/**
 * The topic entries most relevant to the page and the audience, grouped by topic, at most `limit`
 * topics. Ranking is BM25 (MiniSearch) of each entry, its topic's title and purpose, against the
 * page and its type, and against each of the audience's concerns (its company, each sentence of its
 * guidance), each search's scores scaled to its best. Guided topics (near the best match of some
 * concern) come first, those answering most of the guidance first: guidance decides what leads. The
 * others follow by relevance to page and audience together (the audience weighing twice as much),
 * those far below the best left out. When nothing is relevant, the default topic (or the first that
 * has entries) stands in, so that a page is never bare.
 */
export function selectTopics(input: PersonalizationInput, limit: number): SelectedTopic[] {
  const index = new MiniSearch({ fields: ['text', 'title', 'purpose'], processTerm });
  index.addAll(
    input.topics.flatMap((topic) =>
      topic.entries.map((entry) => ({
        id: entry.topicEntryId,
        text: shownText(entry.content.content),
        title: topic.title,
        purpose: topic.purpose,
      })),
    ),
  );
  const page = scoresFor(index, pageQuery(input));
  const clauses = audienceClauses(input).map((clause) => scoresFor(index, clause));
  const ranked = input.topics
    .map((topic) => rankTopic(topic, page, clauses))
    .filter((candidate) => candidate.entries.length > 0);
  const top = Math.max(0, ...ranked.map((candidate) => candidate.best));
  const guided = ranked
    .filter((candidate) => candidate.guided)
    .sort((a, b) => b.answers - a.answers || b.best - a.best);
  const others = ranked
    .filter((candidate) => !candidate.guided && candidate.best >= top * RELATIVE_TOPIC_KEPT)
    .sort((a, b) => b.best - a.best);
  const kept = [...guided, ...others].slice(0, limit);
  if (kept.length > 0) return kept.map(({ topic, entries, guided }) => ({ topic, entries, guided }));
  const standIn =
    input.topics.find((topic) => topic.isDefault && topic.entries.length > 0) ??
    input.topics.find((topic) => topic.entries.length > 0);
  return standIn && limit > 0
    ? [{ topic: standIn, entries: standIn.entries.slice(0, ENTRIES_PER_TOPIC), guided: false }]
    : [];
}
