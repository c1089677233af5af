import { paginate } from '../../http/pagination.ts';
import type { Api } from '../../http/types.ts';
import {
  FormSubmission,
  FormSubmissionList,
  FormSubmissionListQuery,
  FormSubmissionParams,
} from './schema.ts';
import { getFormSubmission, listFormSubmissions } from './service.ts';

const tags = ['Form submissions'];

/** What visitors sent through the forms of public pages, with how far enrichment got: the leads. */
export async function formSubmissionRoutes(api: Api): Promise<void> {
  api.get(
    '/v0/form_submissions',
    {
      schema: {
        tags,
        operationId: 'listFormSubmissions',
        summary: 'List form submissions',
        description:
          "Every submission of a public page's form, newest first, until its retention ends (docs/forms.md). `pageId`, `audienceId` and `enrichment` each keep the submissions that match; given together, the submissions that match them all.",
        querystring: FormSubmissionListQuery,
        response: { 200: FormSubmissionList },
      },
    },
    (request) => {
      const { pageId, audienceId, enrichment } = request.query;
      const filters = { pageId, audienceId, enrichment };
      return paginate(request, filters, (page) => listFormSubmissions(request.tenantDb, filters, page));
    },
  );

  api.get(
    '/v0/form_submissions/:form_submission_id',
    {
      schema: {
        tags,
        operationId: 'getFormSubmission',
        summary: 'Get a form submission',
        description:
          'One submission with what its visitor was served (`arm` and `versionId`, from the page they sent it from) and its enrichment: `pending` until it ends, then `enriched` with the person (and their account, if any) or `failed` with its reason.',
        params: FormSubmissionParams,
        response: { 200: FormSubmission },
      },
    },
    (request) => getFormSubmission(request.tenantDb, request.params.form_submission_id),
  );
}
