import MiniSearch from 'minisearch';
import type { PageType } from '../../resources/pages/schema.ts';
import type { Topic, TopicEntry } from '../../resources/topics/schema.ts';
import type { PersonalizationInput } from './input.ts';
import { markdownText } from './markdown.ts';

/** A topic chosen for a version, with the entries of it worth showing, most relevant first. */
export interface SelectedTopic {
  topic: Topic;
  entries: TopicEntry[];
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

/** What is particular to this audience: its company and its private guidance, which steers what is chosen but is never shown. */
function audienceQuery(input: PersonalizationInput): string {
  return [input.account?.name, input.private.context, ...input.private.notes].filter(Boolean).join('\n');
}

function entryText(entry: TopicEntry): string {
  return entry.content.type === 'markdown' ? markdownText(entry.content.content) : entry.content.content;
}

/**
 * The topic entries most relevant to the page and the audience, grouped by topic, at most `limit`
 * topics, best first. Ranking is BM25 (MiniSearch) of each entry, its topic's title and purpose,
 * against the page and its type, and against the audience (weighing twice as much; each search's
 * scores scaled to its best). When nothing is relevant, the default topic (or the
 * first that has entries) stands in, so that a page is never bare.
 */
export function selectTopics(input: PersonalizationInput, limit: number): SelectedTopic[] {
  const documents = input.topics.flatMap((topic) =>
    topic.entries.map((entry) => ({
      id: entry.topicEntryId,
      text: entryText(entry),
      title: topic.title,
      purpose: topic.purpose,
    })),
  );
  const index = new MiniSearch({ fields: ['text', 'title', 'purpose'], processTerm });
  index.addAll(documents);
  const scores = new Map<string, number>();
  for (const [query, weight] of [
    [pageQuery(input), PAGE_WEIGHT],
    [audienceQuery(input), AUDIENCE_WEIGHT],
  ] as const) {
    const results = query
      ? index.search(query, { boost: { title: 1.5, purpose: 0.5 }, prefix: true, fuzzy: 0.1 })
      : [];
    const best = results[0]?.score ?? 1;
    for (const result of results) {
      const id = String(result.id);
      scores.set(id, (scores.get(id) ?? 0) + (weight * result.score) / best);
    }
  }
  const ranked = input.topics
    .map((topic) => {
      const scored = topic.entries
        .map((entry) => ({ entry, score: scores.get(entry.topicEntryId) ?? 0 }))
        .filter((candidate) => candidate.score > 0)
        .sort((a, b) => b.score - a.score);
      const best = scored[0]?.score ?? 0;
      const entries = scored
        .filter((candidate) => candidate.score >= best * RELATIVE_SCORE_KEPT)
        .slice(0, ENTRIES_PER_TOPIC)
        .map((candidate) => candidate.entry);
      return { topic, entries, best };
    })
    .filter((candidate) => candidate.entries.length > 0)
    .sort((a, b) => b.best - a.best);
  const top = ranked[0]?.best ?? 0;
  const kept = ranked.filter((candidate) => candidate.best >= top * RELATIVE_TOPIC_KEPT).slice(0, limit);
  if (kept.length > 0) return kept.map(({ topic, entries }) => ({ topic, entries }));
  const standIn =
    input.topics.find((topic) => topic.isDefault && topic.entries.length > 0) ??
    input.topics.find((topic) => topic.entries.length > 0);
  return standIn && limit > 0
    ? [{ topic: standIn, entries: standIn.entries.slice(0, ENTRIES_PER_TOPIC) }]
    : [];
}
