import { Problem } from '../http/schemas.ts';
import type { Api } from '../http/types.ts';
import { EventBatch, EventsAccepted } from '../resources/sessions/schema.ts';
import { recordVisit, type SessionAdmission } from '../workflows/visits/service.ts';
import { requireToken, type VisitorWrites } from './token.ts';

/** POST /v0/public/events: batches of session events from the tracking script. */
export async function eventRoutes(app: Api, options: VisitorWrites): Promise<void> {
  app.post(
    '/v0/public/events',
    {
      schema: {
        tags: ['Public'],
        operationId: 'reportSessionEvents',
        summary: 'Report session events',
        description:
          "Sent by the public page's tracking script (sendBeacon-friendly: a text/plain body holding JSON is accepted). No API key: the page's signed token names tenant, page, audience and link. A forged or expired token, an unknown event type or more than 50 events is a 400 and stores nothing. Limited (docs/analytics.md#limits): requests per client address, batches per visit (its token and session), new sessions per address and audience; past a limit, 429 rate_limited with Retry-After, and nothing is stored. A new session beyond its arm's share of the address's visitors counts in analytics but not toward lift. A session's time and interactions are capped at what one visit can produce (4 hours, 10,000). Answered once the batch is on disk.",
        security: [],
        body: EventBatch,
        response: { 200: EventsAccepted, '4XX': Problem },
      },
    },
    async (request, reply) => {
      const { token: value, sessionId, events } = request.body;
      const { token, db } = requireToken(options, value);
      const visit = {
        sessionId,
        pageId: token.pageId,
        audienceId: token.audienceId,
        pageLinkId: token.pageLinkId,
        arm: token.arm,
      };
      const { visitorLimits } = options;
      let admitSession: SessionAdmission | undefined;
      // With the limits off, no request pays for its client's address or for a turn of waiting.
      if (visitorLimits.on) {
        const visitor = { token: value, address: request.ip, sessionId };
        await visitorLimits.eventBatch(visitor, reply);
        admitSession = () => visitorLimits.newSession(visitor, token, reply);
      }
      const accepted = await recordVisit(db, visit, events, Date.now(), admitSession);
      app.metrics.eventsIngested.inc(accepted);
      return { accepted };
    },
  );
}
