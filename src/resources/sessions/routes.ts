import type { FastifyReply } from 'fastify';
import type { Api } from '../../http/types.ts';
import { ItemTexts } from './item-texts.ts';
import { byteLength, KeptAnswers } from './kept-answers.ts';
import { type AudienceHoldout, audienceLift } from './lift.ts';
import {
  AnalyticsParams,
  AnalyticsQuery,
  AudienceAnalytics,
  AudienceLift,
  LiftParams,
  LiftQuery,
} from './schema.ts';
import { audienceAnalytics, closedHoursSize, type PageAudiences, type PageCheck } from './service.ts';

/**
 * The analytics endpoints; `page` checks a page is the tenant's, `audiences` lists its audiences,
 * `holdout` tells an audience's.
 */
export async function sessionRoutes(
  api: Api,
  { page, audiences, holdout }: { page: PageCheck; audiences: PageAudiences; holdout: AudienceHoldout },
): Promise<void> {
  const kept = new KeptAnswers(byteLength);
  const closedHours = new KeptAnswers(closedHoursSize);
  const itemTexts = new ItemTexts();
  api.get(
    '/v0/pages/:page_id/analytics/audiences',
    {
      schema: {
        tags: ['Analytics'],
        operationId: 'getAudienceAnalytics',
        summary: "Session metrics of a page's audiences",
        description:
          'One item per audience of the page (archived ones too; zeros without sessions), over sessions that started in [startDate, endDate). Default: the 30 days before now. startDate must be before endDate, at most 366 days apart (400). Rates are fractions 0-1; avgScrollDepthPercentage is 0-100. A bounce is a session with no interaction, no CTA click, no form submission and under 10 s; every session is bounce-eligible; a conversion is a session with a CTA click or a form submission.',
        params: AnalyticsParams,
        querystring: AnalyticsQuery,
        response: { 200: AudienceAnalytics },
      },
    },
    // The answer comes serialized (it is kept so): sent as it is, past the schema's serializer,
    // which the reply's types would otherwise ask for.
    async (request, reply) =>
      (reply as FastifyReply).type('application/json; charset=utf-8').send(
        await audienceAnalytics(request.tenantDb, request.params.page_id, request.query, {
          page,
          audiences,
          kept,
          closedHours,
          itemTexts,
        }),
      ),
  );

  api.get(
    '/v0/pages/:page_id/analytics/audiences/:audience_id/lift',
    {
      schema: {
        tags: ['Analytics'],
        operationId: 'getAudienceLift',
        summary: 'Conversion lift of an audience over its holdout',
        description:
          "How the audience's personalized page converts against the baseline (version 0) served to its holdout (`holdoutPercent`), over sessions that started in [startDate, endDate) with the rules of the analytics endpoint, but for those a client address started beyond its arm's share of the visitors it may stand for (they count in analytics only; docs/analytics.md#what-counts-toward-lift). Per arm: sessions, conversions, conversion rate. absoluteLift and relativeLift of personalized over baseline; the 95 % Newcombe hybrid score interval of the difference; the Bayesian chance (uniform priors) that personalized beats baseline; a chi-square sample-ratio-mismatch check; enoughData (both arms at least 100 sessions and 10 conversions); and the daily series per UTC day. Because a fixed interval read every day finds a winner far more often than 5 % of the time when there is none, the answer also carries confidenceSequence, an always-valid 95 % interval of the absolute lift (normal mixture, tuned by sequentialTuning), the decision it supports (personalized_wins, baseline_wins or keep_running) and, while it says keep_running, sessionsToDecision: about how many more sessions before a lift of the observed size (or of minimumLift, while the observed one is smaller) would be declared, never fewer than enoughData still needs. Each day of the daily series carries the sequence of the sessions up to its end. Both intervals lie within [-1, 1]. Figures that need a session in both arms are null until then; confidenceSequence is itself null, and the decision keep_running, while an arm is empty or neither arm varies. 404 for an unknown page, or an audience that is not the page's. See docs/analytics.md.",
        params: LiftParams,
        querystring: LiftQuery,
        response: { 200: AudienceLift },
      },
    },
    (request) =>
      audienceLift(
        request.tenantDb,
        request.params.page_id,
        request.params.audience_id,
        request.query,
        holdout,
      ),
  );
}
