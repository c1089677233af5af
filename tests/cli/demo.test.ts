import { afterEach, describe, expect, it } from 'vitest';
import { PAGES, PERSONS } from '../../src/cli/demo-sample.ts';
import { escapeHtml } from '../../src/shared/html.ts';
import { type Environment, freshEnvironment, startServe, tailor } from '../helpers/process.ts';

const PUBLIC_URL = 'http://tailor.test:8080';
const PAGES_URL = 'http://pages.tailor.test:8081';

let environment: Environment | undefined;
afterEach(async () => {
  await environment?.drop();
  environment = undefined;
});

/** The public addresses `tailor demo` printed, in order. */
function urlsOf(stdout: string): string[] {
  return [...stdout.matchAll(/^ {2}(http\S+\/p\/\S+)/gm)].map((match) => match[1] as string);
}

describe('tailor demo', () => {
  it('fills a fresh database, prints pages that are served, and can run again', async () => {
    environment = await freshEnvironment();
    const env = { ...environment.env, TAILOR_PUBLIC_URL: PUBLIC_URL, TAILOR_PAGES_URL: PAGES_URL };

    const first = await tailor(['demo'], env);
    expect(first.code, first.stderr).toBe(0);
    // An empty database gets tenant `default` and its key, as `tailor serve` would make them.
    const apiKey = first.stdout.match(/API key: (tlr_[0-9A-Za-z]{40})/)?.[1] as string;
    expect(apiKey).toBeDefined();
    expect(first.stdout).toMatch(
      /2 brands\n\s+7 topics\n\s+4 accounts\n\s+5 persons\n\s+4 pages\n\s+11 audiences\n\s+11 page links/,
    );
    expect(first.stdout).toMatch(/\d+ visitor sessions/);
    expect(first.stdout).toContain('2 form submissions');
    const urls = urlsOf(first.stdout);
    expect(urls).toHaveLength(11);
    // On the pages origin, never the API's (the console's).
    for (const url of urls) expect(url).toMatch(new RegExp(`^${PAGES_URL}/p/default/[a-z0-9/-]+$`));

    const again = await tailor(['demo'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).not.toContain('API key:');
    expect(again.stdout).toContain('11 page links (11 from an earlier run)');
    expect(again.stdout).not.toContain('visitor sessions');
    expect(urlsOf(again.stdout)).toEqual(urls);

    const server = await startServe(env);
    try {
      // Each page is served in its brand, and none shows an audience's context or a person's note.
      const secrets = [
        ...PAGES.flatMap((spec) => spec.audiences.map((audience) => audience.context)),
        ...PERSONS.flatMap((person) => (person.note ? [person.note] : [])),
      ];
      for (const url of urls) {
        const response = await fetch(`${server.pagesUrl}${url.slice(PAGES_URL.length)}`);
        expect(response.status, url).toBe(200);
        const body = await response.text();
        expect(body).toMatch(/\| (Brightwave|Keelson)<\/title>/);
        expect(body).toMatch(/<span>(Brightwave|Keelson)<\/span>/);
        for (const secret of secrets) expect(body, url).not.toContain(escapeHtml(secret));
      }

      const api = (path: string): Promise<any> =>
        fetch(`${server.url}${path}`, { headers: { 'x-api-key': apiKey } }).then((response) =>
          response.json(),
        );
      const persons = await api('/v0/persons');
      expect(persons.totalCount).toBe(5);
      const accounts = await api('/v0/accounts/search');
      expect(accounts.totalCount).toBe(4);
      expect(
        accounts.items.every((account: { latestActivityAt: string | null }) => account.latestActivityAt),
      ).toBe(true);
      const pages = await api('/v0/pages');
      const platform = pages.items.find(
        (page: { name: string }) => page.name === 'Retail analytics platform',
      );
      const analytics = await api(`/v0/pages/${platform.pageId}/analytics/audiences`);
      expect(analytics.items).toHaveLength(6);
      expect(analytics.items.every((item: { totalSessions: number }) => item.totalSessions > 0)).toBe(true);
      // The holdout audience has enough sessions in both arms for the lift to tell something.
      const liftPath = first.stdout.match(/over its 20 % holdout \(docs\/analytics\.md\): GET (\S+)/)?.[1];
      expect(liftPath).toMatch(/^\/v0\/pages\/page_\w+\/analytics\/audiences\/audience_\w+\/lift$/);
      const lift = await api(liftPath as string);
      expect(lift).toMatchObject({ holdoutPercent: 20, enoughData: true, srm: { mismatch: false } });
      expect(lift.baseline.sessions).toBeGreaterThanOrEqual(100);
      expect(lift.absoluteLift).toBeGreaterThan(0);
      expect(lift.confidenceInterval.lower).toBeLessThan(lift.confidenceInterval.upper);
      expect(lift.chanceToBeatBaseline).toBeGreaterThan(0.5);
      // Between them, the audiences with a holdout show each decision of the always-valid interval.
      const liftPaths = [...first.stdout.matchAll(/% holdout \(docs\/analytics\.md\): GET (\S+)/g)].map(
        (match) => match[1] as string,
      );
      const lifts = await Promise.all(liftPaths.map((path) => api(path)));
      const decisions = lifts.map((each) => each.decision);
      expect(
        decisions.sort(),
        JSON.stringify(lifts.map((each) => [each.personalized, each.baseline])),
      ).toEqual(['baseline_wins', 'keep_running', 'personalized_wins']);
      expect(lift.decision).toBe('keep_running');
      expect(lift.sessionsToDecision).toBeGreaterThan(0);
      // The demo's form submissions were enriched onto their persons.
      const jane = persons.items.find((person: { email: string }) => person.email.startsWith('jane.cooper@'));
      const logs = await api(`/v0/persons/${jane.personId}/logs`);
      expect(logs.items.map((log: { kind: string }) => log.kind)).toContain('activity');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 180_000);

  it("refuses to fill another database than the running server's, naming what differs", async () => {
    environment = await freshEnvironment();
    const server = await startServe(environment.env);
    try {
      const elsewhere = await tailor(['demo'], {
        ...environment.env,
        DATABASE_URL: 'postgres://tailor:secret@127.0.0.1:1/other',
        TAILOR_SECRET: 'a-secret-of-at-least-thirty-two-characters',
      });
      expect(elsewhere.code).toBe(1);
      expect(elsewhere.stdout).toBe('');
      expect(elsewhere.stderr).toContain(`a Tailor server (pid ${server.child.pid}) is running`);
      expect(elsewhere.stderr).toContain('DATABASE_URL (or TAILOR_DATA_DIR): the server uses ');
      expect(elsewhere.stderr).toContain('this command postgres://tailor@127.0.0.1:1/other');
      expect(elsewhere.stderr).not.toContain('secret');
      // Without the server's PORT, the demo would print addresses nothing answers at.
      expect(elsewhere.stderr).toContain('PORT (or TAILOR_PUBLIC_URL): the server uses http://127.0.0.1:');

      const alike = await tailor(['demo'], {
        ...environment.env,
        HOST: '127.0.0.1',
        PORT: new URL(server.url).port,
        TAILOR_PAGES_PORT: new URL(server.pagesUrl).port,
      });
      expect(alike.code, alike.stderr).toBe(0);
      expect(alike.stdout).toContain('Open these (the server is running with this environment):');
      expect(alike.stdout).toContain(`  ${server.pagesUrl}/p/default/`);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    // A server that has stopped holds nothing back.
    const after = await tailor(['demo'], environment.env);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toContain('Open these once the server runs with this same environment');
  }, 180_000);
});
