import type { Api } from '../../http/types.ts';
import { AnalyticsParams, AnalyticsQuery, AudienceAnalytics } from './schema.ts';
import { audienceAnalytics, type PageAudiences } from './service.ts';

/** The analytics endpoint; `audiences` lists the audiences of a page. */
export async function sessionRoutes(api: Api, { audiences }: { audiences: PageAudiences }): Promise<void> {
  api.get(
    '/v0/pages/:page_id/analytics/audiences',
    {
      schema: {
        tags: ['Analytics'],
        summary: "Session metrics of a page's audiences",
        description:
          'One item per audience of the page (archived ones too; zeros without sessions), over sessions that started in [startDate, endDate). Default: the 30 days before now. startDate must be before endDate, at most 366 days apart (400). Rates are fractions 0-1; avgScrollDepthPercentage is 0-100. A bounce is a session with no interaction, no CTA click, no form submission and under 10 s; every session is bounce-eligible; a conversion is a session with a CTA click or a form submission.',
        params: AnalyticsParams,
        querystring: AnalyticsQuery,
        response: { 200: AudienceAnalytics },
      },
    },
    (request) => audienceAnalytics(request.tenantDb, request.params.page_id, request.query, audiences),
  );
}
