import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generationJob } from '../../src/workflows/audience-versions/generation.ts';
import { GENERATE_JOB } from '../../src/workflows/audience-versions/service.ts';
import type { Personalizer } from '../../src/workflows/personalization/personalizer.ts';
import { anyTables } from '../helpers/any-tables.ts';
import { entryContent } from '../helpers/knowledge-arbitraries.ts';
import { visibleText } from '../helpers/quality-fixtures.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

/**
 * Generation over HTTP, end to end: whatever the knowledge holds, a version ends as a draft; one
 * that cannot be written ends cancelled with the reason, never waiting for ever; and generating
 * again makes an alternative.
 */

let server: TestServer;
let api: Client;
let brands = 0;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

interface Made {
  url: string;
  pageId: string;
  audienceId: string;
}

/** A brand of its own with one topic of `entries`, a page of it, and an audience of the page (not yet generated). */
async function audienceWith(
  entries: { type: string; content: string }[],
  page: Record<string, unknown> = {},
  audience: Record<string, unknown> = {},
): Promise<Made> {
  const brandId = `brand-${++brands}`;
  expect(
    (await api.request('PUT', `/v0/brands/${brandId}`, { body: { name: `Brand ${brands}` } })).status,
  ).toBe(201);
  const topic = (await api.post('/v0/topics', { title: 'Stock-outs', brandIds: [brandId] })).body;
  for (const content of entries) {
    const added = await api.post(`/v0/topics/${topic.topicId}/entries`, { content });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
  }
  const created = await api.post('/v0/pages', {
    name: 'Retail analytics',
    pageContext: 'Brightwave shows retailers what sells where. Most are live within two weeks.',
    brandId,
    actions: [{ actionId: 'talk', buttonTitle: 'Talk to us', actionType: 'form', purpose: 'A call' }],
    actionCardWidgets: [],
    scripts: [],
    ...page,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const { pageId } = created.body;
  const made = await api.post(`/v0/pages/${pageId}/audiences`, audience);
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const { audienceId } = made.body;
  return { url: `/v0/pages/${pageId}/audiences/${audienceId}`, pageId, audienceId };
}

async function latestVersion(made: Made) {
  const versions = await api.get(`${made.url}/versions`);
  expect(versions.status).toBe(200);
  return versions.body.items[0];
}

async function previewText(made: Made, versionId: string): Promise<{ html: string; text: string }> {
  const response = await api.get(`${made.url}/versions/${versionId}/preview`);
  expect(response.status).toBe(200);
  return { html: response.body, text: visibleText(response.body) };
}

describe('generation never sticks', () => {
  it('makes a draft of a topic whose plain-text entry has bold text, and shows it bold', async () => {
    const made = await audienceWith([
      { type: 'text', content: 'Grocers cut empty shelves by **nineteen percent** over the holidays.' },
    ]);
    await server.worker().drain();
    const latest = await latestVersion(made);
    expect(latest).toMatchObject({ state: 'draft', generatedBy: 'built-in', generationNote: null });
    const { html, text } = await previewText(made, latest.versionId);
    expect(html).toContain('<strong>nineteen percent</strong>');
    expect(text).not.toContain('**');
  });

  it('makes a draft whatever the entries hold: markdown of every kind, HTML, addresses, emoji, long text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(entryContent, { minLength: 1, maxLength: 3 }), async (entries) => {
        const made = await audienceWith(entries, {}, { supplementaryContext: 'Worried about stock-outs.' });
        await server.worker().drain();
        const latest = await latestVersion(made);
        expect(latest.state, JSON.stringify(latest)).toBe('draft');
        const { text } = await previewText(made, latest.versionId);
        expect(text).not.toMatch(/\*\*|\]\(|elsewhere\.example/);
      }),
      { seed: 22, numRuns: 8 },
    );
  }, 120_000);

  it('cancels at once, saying why, a version of a page that cannot be shown, without trying again', async () => {
    const made = await audienceWith([{ type: 'text', content: 'Alerts come two weeks ahead.' }], {
      actions: [{ actionId: 'talk', buttonTitle: '**Talk** to us', actionType: 'form' }],
    });
    await server.worker().drain();
    const latest = await latestVersion(made);
    expect(latest.state).toBe('cancelled');
    expect(latest.generationNote).toContain('/actions/0/buttonTitle shows markup');
    expect((await api.get(made.url)).body.status).toBe('cancelled');
    const job = await anyTables(server.database)
      .selectFrom('jobs')
      .select(['state', 'attempts'])
      .where('kind', '=', GENERATE_JOB)
      .where('payload', 'like', `%${latest.versionId}%`)
      .executeTakeFirstOrThrow();
    expect(job).toEqual({ state: 'done', attempts: 1 });
  });

  it('shows why a version waits for its next attempt, and why it was cancelled after the last', async () => {
    const made = await audienceWith([{ type: 'text', content: 'Alerts come two weeks ahead.' }]);
    const away: Personalizer = {
      name: 'away',
      async personalize() {
        throw new Error('The language model did not answer in time');
      },
    };
    const worker = server.worker({ handlers: server.handlersWith(generationJob(away)) });
    await worker.drain();
    const pending = await latestVersion(made);
    expect(pending.state).toBe('pending');
    expect(pending.generationNote).toBe('Attempt 1 of 5 failed: The language model did not answer in time');
    await worker.drain(Date.now() + 3_600_000);
    const cancelled = await latestVersion(made);
    expect(cancelled.state).toBe('cancelled');
    expect(cancelled.generationNote).toBe(
      'Generation was given up after 5 attempts; the last failed: The language model did not answer in time',
    );
  });
});

describe('generating again', () => {
  it('makes a fresh alternative to the version before, each time', async () => {
    const made = await audienceWith(
      [
        { type: 'text', content: 'Alerts flag the stores that will run out two weeks before they do.' },
        { type: 'markdown', content: 'Grocers cut empty shelves by **nineteen percent**.' },
      ],
      { pageType: 'outbound' },
      { supplementaryContext: 'Worried about stock-outs before the holidays.' },
    );
    await server.worker().drain();
    const contents = [(await latestVersion(made)).content];
    for (let again = 0; again < 2; again++) {
      expect((await api.post(`${made.url}/versions`, {})).status).toBe(201);
      await server.worker().drain();
      const latest = await latestVersion(made);
      expect(latest.state).toBe('draft');
      expect(latest.content).not.toEqual(contents.at(-1));
      contents.push(latest.content);
    }
    expect(contents.map((content) => content.sections[0].heading)).toEqual(Array(3).fill('Stock-outs'));
  });
});
