import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_PAGE } from '../helpers/pages.ts';
import { type Client, startServer, type TestServer } from '../helpers/server.ts';

// Decisions §2, "A write answers what it did": the body of a write's answer is the resource as that
// write left it, whatever commits with it or after it; a write that loses a race at a unique key
// answers as if it had arrived second. Issue 37 found concurrent PATCHes of one topic answering
// `v0 v4 v4 v4 v4` (read back after the group's commit), and person PATCHes losing a race for an
// email answering 409 without naming the holder.

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startServer();
  api = await server.newTenant();
});
afterAll(() => server.close());

const EDITS = ['v0', 'v1', 'v2', 'v3', 'v4'];

/** Sends one PATCH per edit at once; answers each answer's status and body, in the edits' order. */
async function patchAtOnce(path: string, body: (edit: string) => Record<string, unknown>) {
  return Promise.all(EDITS.map((edit) => api.patch(path, body(edit))));
}

describe('concurrent PATCHes of one resource', () => {
  it('a topic: each answers its own edit', async () => {
    const topic = await api.post('/v0/topics', { title: 'Stories' });
    expect(topic.status).toBe(201);
    const answers = await patchAtOnce(`/v0/topics/${topic.body.topicId}`, (edit) => ({ title: edit }));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.map((answer) => answer.body.title)).toEqual(EDITS);
  });

  it('a person: each answers its own edit', async () => {
    const person = await api.post('/v0/persons', { name: 'Ada Lovelace' });
    expect(person.status).toBe(201);
    const answers = await patchAtOnce(`/v0/persons/${person.body.personId}`, (edit) => ({
      phoneNumber: `+4420712345${EDITS.indexOf(edit)}0`,
    }));
    expect(answers.map((answer) => answer.body.phoneNumber)).toEqual(
      EDITS.map((_, index) => `+4420712345${index}0`),
    );
  });

  it('a page, its audience, a link to it, and an account: each answers its own edit', async () => {
    const page = await api.post('/v0/pages', SAMPLE_PAGE);
    expect(page.status).toBe(201);
    const pages = await patchAtOnce(`/v0/pages/${page.body.pageId}`, (edit) => ({ name: edit }));
    expect(pages.map((answer) => answer.body.name)).toEqual(EDITS);

    const audience = await api.post(`/v0/pages/${page.body.pageId}/audiences`, {});
    expect(audience.status).toBe(201);
    const audiences = await patchAtOnce(
      `/v0/pages/${page.body.pageId}/audiences/${audience.body.audienceId}`,
      (edit) => ({ customName: `Audience ${edit}` }),
    );
    expect(audiences.map((answer) => answer.body.customName)).toEqual(
      EDITS.map((edit) => `Audience ${edit}`),
    );

    const link = await api.post('/v0/page_links', {
      path: '/answers',
      target: { targetType: 'audience', audienceId: audience.body.audienceId },
    });
    expect(link.status, JSON.stringify(link.body)).toBe(201);
    const links = await patchAtOnce(`/v0/page_links/${link.body.pageLinkId}`, (edit) => ({
      path: `/${edit}`,
    }));
    expect(links.map((answer) => answer.body.path)).toEqual(EDITS.map((edit) => `/${edit}`));

    await api.post('/v0/persons', { name: 'Dana Reyes', email: 'dana@northwind.example' });
    const found = await api.get('/v0/accounts/search?query=northwind');
    const accountId = found.body.items[0]?.accountId;
    const accounts = await patchAtOnce(`/v0/accounts/${accountId}`, (edit) => ({ name: edit }));
    expect(accounts.map((answer) => answer.body.name)).toEqual(EDITS);
  });
});

describe('PATCHes racing for one unique value', () => {
  it('persons taking one email: one gets it, every other 409 names the person who holds it', async () => {
    const persons = await Promise.all(
      Array.from({ length: 10 }, (_, index) => api.post('/v0/persons', { name: `Racer ${index}` })),
    );
    const answers = await Promise.all(
      persons.map((person) =>
        api.patch(`/v0/persons/${person.body.personId}`, { email: 'one@race.example' }),
      ),
    );
    const winners = answers.filter((answer) => answer.status === 200);
    expect(winners).toHaveLength(1);
    const holder = winners[0]?.body.personId;
    for (const answer of answers.filter((candidate) => candidate.status !== 200)) {
      expect(answer.status).toBe(409);
      expect(answer.body.detail).toBe(`A person with this email already exists: ${holder}`);
    }
  });
});
