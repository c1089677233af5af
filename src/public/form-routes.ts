import { Problem } from '../http/schemas.ts';
import type { Api } from '../http/types.ts';
import { FormSubmissionAccepted, FormSubmissionCreate } from '../resources/forms/schema.ts';
import { submitForm } from '../workflows/enrichment/service.ts';
import { requireToken, type VisitorWrites } from './token.ts';

export interface FormRouteOptions extends VisitorWrites {
  /** The API's own address: a submission's resource lives there, not on the pages origin. */
  apiUrl: string;
}

/** POST /v0/public/forms: the action form of a public page. */
export async function formRoutes(app: Api, options: FormRouteOptions): Promise<void> {
  app.post(
    '/v0/public/forms',
    {
      schema: {
        tags: ['Public'],
        operationId: 'submitForm',
        summary: 'Submit a form',
        description:
          "Sent by a public page's action form (a text/plain body holding JSON is accepted too). No API key: the page's signed token names tenant, page, audience and link; a forged, altered or expired token is a 400 on `/body/token` and stores nothing. The address enriched is `email`, else `fields.email`. At most 64 KiB (413), 50 fields of at most 5,000 characters (400). Limited per client address and per visit (its token, and its session or else its address): past a limit, 429 rate_limited with Retry-After, and nothing is stored. A session that the submission would start counts it only within the limits on new sessions. Answered 201 with the submission's address on the API (`Location`, read with an API key) once the submission, its `form.submitted` event and its enrichment job are on disk; enrichment then ends in `form.enriched` or `form.enrichment_failed`. See docs/forms.md.",
        security: [],
        body: FormSubmissionCreate,
        response: { 201: FormSubmissionAccepted, '4XX': Problem },
      },
    },
    async (request, reply) => {
      const { token: value, ...submission } = request.body;
      const { token, db } = requireToken(options, value);
      const visitor = { token: value, address: request.ip, sessionId: submission.sessionId };
      await options.visitorLimits.formSubmission(visitor, reply);
      const { visitorLimits } = options;
      const accepted = await submitForm(db, token, submission, {
        ...(visitorLimits.on && {
          admitSession: () => visitorLimits.newSession(visitor, token),
        }),
      });
      app.metrics.formsIngested.inc();
      return reply
        .code(201)
        .header('Location', `${options.apiUrl}/v0/form_submissions/${accepted.formSubmissionId}`)
        .send(accepted);
    },
  );
}
