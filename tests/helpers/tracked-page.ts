import type { TenantDb } from '../../src/db/tenant-db.ts';
import type { Visit } from '../../src/resources/sessions/service.ts';
import { recordVisit } from '../../src/workflows/visits/service.ts';
import type { Client, TestServer } from './server.ts';

/** A page of the tenant with audiences and a link, whose sessions a test records as it goes. */
export interface TrackedPage {
  pageId: string;
  /** The page's audiences, in the order they were made. */
  audiences: string[];
  db: TenantDb;
  /**
   * Records a session of the `audience`th audience that starts at `at`, with some time spent, and a
   * CTA click when `converts`; every third is in the baseline arm, and every fifth counts in
   * analytics only (outside the lift, as its client address's limit would have it).
   */
  session(at: number, audience?: number, converts?: boolean): Promise<Visit>;
}

let pages = 0;

/** A new page of `api`'s tenant on `server`, with `audienceCount` audiences and a link to the first. */
export async function trackedPage(
  server: TestServer,
  api: Client,
  audienceCount: number,
): Promise<TrackedPage> {
  const number = ++pages;
  const pageId = (
    await api.post('/v0/pages', {
      name: `Tracked ${number}`,
      pageContext: 'C.',
      brandId: 'b',
      actions: [{ actionId: 'cta', buttonTitle: 'Go', actionType: 'link' }],
      actionCardWidgets: [],
      scripts: [],
    })
  ).body.pageId;
  const audiences: string[] = [];
  for (let i = 0; i < audienceCount; i++)
    audiences.push((await api.post(`/v0/pages/${pageId}/audiences`, {})).body.audienceId);
  const link = await api.post('/v0/page_links', {
    path: `/tracked-${number}`,
    target: { targetType: 'audience', audienceId: audiences[0] },
  });
  const db = server.database.forTenant(api.tenantId);
  let sessions = 0;
  return {
    pageId,
    audiences,
    db,
    async session(at, audience = 0, converts = false) {
      const n = ++sessions;
      const visit: Visit = {
        sessionId: `tracked-${number}-${n}`,
        pageId,
        audienceId: audiences[audience] as string,
        pageLinkId: link.body.pageLinkId,
        arm: n % 3 === 0 ? 'baseline' : 'personalized',
      };
      await recordVisit(
        db,
        visit,
        [
          { type: 'session_start', at },
          { type: 'time', at, ms: 4_000 + n * 1_000 },
          ...(converts ? [{ type: 'cta_click' as const, at, actionId: 'cta' }] : []),
        ],
        at,
        async () => ({ inLift: n % 5 !== 0 }),
      );
      return visit;
    },
  };
}
