import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as audiences from '../../src/resources/audiences/service.ts';
import { gather } from '../../src/workflows/audience-versions/gather.ts';
import { sentencesOf } from '../../src/workflows/personalization/check.ts';
import { markdownText } from '../../src/workflows/personalization/markdown.ts';
import { rankKnowledge } from '../../src/workflows/personalization/personalizer.ts';
import type { Ranked } from '../../src/workflows/personalization/select.ts';
import { type Draft, queueDemo, queueHostile } from '../helpers/copy-fixtures.ts';
import { visibleText } from '../helpers/quality-fixtures.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

/**
 * The copy-quality suite: the built-in personalizer's drafts for every audience of the demo and for
 * knowledge bases made to trip it up, read through the HTTP API and the preview as a marketer reads
 * them before sending. No sentence describes the page or its making, nothing the guidance rules out
 * shows, nothing of the private context shows, and each section of knowledge is the best-ranked
 * passage the guidance allows, in the ranking's order.
 */

interface Read {
  draft: Draft;
  content: { headline: string; subheadline: string; sections: { heading: string; body: string }[] };
  /** What a visitor of the preview reads. */
  text: string;
  /** The knowledge as the built-in personalizer ranked it for this audience. */
  ranked: Ranked[];
}

let server: TestServer;
let reads: Read[];

async function read(client: Client, draft: Draft): Promise<Read> {
  const url = `/v0/pages/${draft.pageId}/audiences/${draft.audienceId}/versions`;
  const versions = (await client.get(url)).body.items as { versionNumber: number; versionId: string }[];
  const listed = versions.find((version) => version.versionNumber === 1);
  const version = await client.get(`${url}/${listed?.versionId}`);
  expect(version.body, draft.label).toMatchObject({ state: 'draft', generatedBy: 'built-in' });
  const preview = await client.get(`${url}/${listed?.versionId}/preview`);
  expect(preview.status, draft.label).toBe(200);
  const db = server.database.forTenant(client.tenantId);
  const audience = await audiences.findAudienceById(db, draft.audienceId);
  const row = await audiences.findVersion(db, listed?.versionId as string);
  if (!audience || !row) throw new Error(`${draft.label}: no audience or version`);
  return {
    draft,
    content: version.body.content,
    text: visibleText(preview.body),
    ranked: rankKnowledge(await gather(db, audience, row)),
  };
}

beforeAll(async () => {
  server = await startServer();
  // Apart: every brand's knowledge is another's to the check, and the demo's and the hostile's alike.
  const [demo, hostile] = [await server.newTenant(), await server.newTenant()];
  const drafts: [Client, Draft[]][] = [
    [demo, await queueDemo(demo)],
    [hostile, await queueHostile(hostile)],
  ];
  await server.worker().drain();
  reads = [];
  for (const [client, each] of drafts) for (const draft of each) reads.push(await read(client, draft));
}, 180_000);
afterAll(() => server.close());

/** Sentences that describe the page or its making, as the issue found them and their kin. */
const META = [
  /chosen for/i,
  /picked for/i,
  /selected for/i,
  /this page/i,
  /(?:page|this) starts with/i,
  /personali[sz]ed/i,
  /tailored for you/i,
  /based on your profile/i,
  /we put .+ first/i,
  /we (?:prepared|put together) this/i,
];

/** Sentences of a text of three words or more: what quoting it would take. */
function sentences(text: string): string[] {
  return sentencesOf(text).filter((sentence) => sentence.split(/\s+/).length >= 3);
}

/** The text a reader sees of a draft's copy. */
function copyOf(content: Read['content']): string {
  return [
    content.headline,
    content.subheadline,
    ...content.sections.flatMap((section) => [section.heading, markdownText(section.body)]),
  ].join('\n');
}

/** The ranked passages that have copy to show, with what a reader sees of it, best first. */
function showable(ranked: Ranked[]): { ranked: Ranked; text: string }[] {
  return ranked.flatMap((each) => {
    const copy = each.passage.copy();
    return copy ? [{ ranked: each, text: markdownText(copy) }] : [];
  });
}

/** Where each section's first passage of knowledge (by where it stands in the section) is in the ranking. */
function leadRanks(each: Read): number[] {
  const candidates = showable(each.ranked);
  return each.content.sections.flatMap((section) => {
    const text = markdownText(section.body);
    const shown = candidates.filter((candidate) => text.includes(candidate.text));
    const [lead] = shown.sort((a, b) => text.indexOf(a.text) - text.indexOf(b.text));
    return lead ? [candidates.indexOf(lead)] : [];
  });
}

describe('the drafts', () => {
  it('cover every audience of the demo and every hostile knowledge base', () => {
    expect(reads.filter((each) => each.draft.label.startsWith('demo')).length).toBe(11);
    expect(reads.length).toBe(20);
  });

  it('have no sentence that describes the page or its making', () => {
    for (const { draft, text, content } of reads) {
      for (const pattern of META) {
        expect(text, draft.label).not.toMatch(pattern);
        expect(copyOf(content), draft.label).not.toMatch(pattern);
      }
    }
  });

  it('show nothing the guidance rules out', () => {
    const ruling = reads.filter((each) => each.draft.excluded.length > 0);
    expect(ruling.length).toBeGreaterThanOrEqual(4);
    for (const { draft, text } of ruling) {
      for (const excluded of draft.excluded) expect(text, draft.label).not.toMatch(excluded);
    }
  });

  it('show no sentence of the private context or of a note, even where the knowledge repeats it', () => {
    for (const { draft, text } of reads) {
      for (const secret of draft.private) {
        for (const sentence of sentences(secret)) expect(text, draft.label).not.toContain(sentence);
      }
    }
  });

  it('show the knowledge worth showing, and nothing a marketer would not send', () => {
    for (const { draft, text, content } of reads) {
      for (const never of draft.never) expect(text, draft.label).not.toMatch(never);
      for (const shown of draft.shows) expect(copyOf(content), draft.label).toContain(shown);
      for (const phrase of draft.once) {
        expect(text.split(phrase).length - 1, `${draft.label}: ${phrase}`).toBeLessThanOrEqual(1);
      }
      expect(text, draft.label).not.toMatch(/\*\*|__|\]\(|<\/?[a-z]+[ >]/i);
    }
  });

  it('have a hero and at most four sections, none empty, none repeating the hero, none too long to read', () => {
    for (const { draft, content } of reads) {
      expect(content.headline.length, draft.label).toBeLessThan(90);
      expect(content.sections.length, draft.label).toBeGreaterThan(0);
      expect(content.sections.length, draft.label).toBeLessThanOrEqual(4);
      for (const section of content.sections) {
        const body = markdownText(section.body);
        expect(body.trim(), draft.label).not.toBe('');
        expect(body.length, `${draft.label}: ${section.heading}`).toBeLessThanOrEqual(1200);
        for (const hero of [content.headline, content.subheadline].filter(Boolean))
          expect(body, draft.label).not.toContain(hero);
      }
    }
  });
});

describe('what the guidance decides', () => {
  it('opens each section of knowledge with the best-ranked passage not yet shown, in the ranking’s order', () => {
    for (const each of reads) {
      const ranks = leadRanks(each);
      expect(ranks.length, each.draft.label).toBeGreaterThan(0);
      expect(ranks[0], each.draft.label).toBe(0);
      expect(ranks, each.draft.label).toEqual([...ranks].sort((a, b) => a - b));
    }
  });

  it('leads with the section its guidance points at', () => {
    const guided = reads.filter((each) => each.draft.leadsWith);
    expect(guided.length).toBeGreaterThanOrEqual(15);
    for (const { draft, content, ranked } of guided) {
      expect(content.sections[0]?.heading, draft.label).toBe(draft.leadsWith);
      expect(ranked[0]?.guided, draft.label).toBe(true);
    }
  });

  it('gives two audiences of one page whose guidance differs different first sections', () => {
    const platform = reads.filter((each) => each.draft.label.startsWith('demo /platform/'));
    const firsts = new Set(platform.map((each) => each.content.sections[0]?.heading));
    expect(firsts.size).toBeGreaterThanOrEqual(4);
  });
});

describe('how the drafts read', () => {
  it('name the company as a reader would, and address a person by first name, the formal brand excepted', () => {
    const byLabel = (label: string) => reads.find((each) => each.draft.label === label) as Read;
    expect(byLabel('demo /platform/globex').content.headline).toMatch(/Jane|Globex Retail/);
    expect(byLabel('demo /keelson/umbrella').content.headline).toContain('Umbrella Outfitters');
    expect(byLabel('demo /keelson/initech').content.headline).not.toContain('Marcus');
    for (const { draft, text } of reads) expect(text, draft.label).not.toMatch(/\b[\w-]+\.example\b/);
  });

  it('make a follow-up read as a follow-up to a conversation', () => {
    for (const { draft, content } of reads.filter((each) => each.draft.pageType === 'call_followup')) {
      expect(content.headline, draft.label).toMatch(/conversation|where we left off/i);
      expect(content.subheadline, draft.label).toMatch(/^(Thank you|It was good to talk)/);
    }
  });
});
