import { type Static, Type } from 'typebox';
import { IdParams, IdString, Nullable, PagedList, PageQuery, Timestamp } from '../../http/schemas.ts';
import { ARMS } from '../../shared/arm.ts';
import { MAX_EMAIL_LENGTH } from '../../shared/email.ts';
import { ENRICHMENT_STATES } from './tables.ts';

/** Bounds of a submission: generous for a contact form, small enough for a sendBeacon body. */
export const MAX_FIELDS = 50;
export const MAX_FIELD_NAME = 100;
export const MAX_FIELD_VALUE = 5000;

export const FormFields = Type.Record(Type.String(), Type.String({ maxLength: MAX_FIELD_VALUE }), {
  maxProperties: MAX_FIELDS,
  propertyNames: { minLength: 1, maxLength: MAX_FIELD_NAME },
  description: `The form's fields by name: up to ${MAX_FIELDS} of them, names 1-${MAX_FIELD_NAME} characters, string values of at most ${MAX_FIELD_VALUE} characters`,
});
export type FormFields = Static<typeof FormFields>;

export const FormSubmissionCreate = Type.Object(
  {
    token: Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        'The signed token of the public page the form is on; names the tenant, page, audience and link',
    }),
    sessionId: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9-]{8,64}$',
        description:
          "A session id such as 5d1c7a2e-9b1f-4c3e: 8 to 64 letters, digits or '-'. The visitor's session id, as reported to /v0/public/events; the session counts the submission",
        examples: ['5d1c7a2e-9b1f-4c3e'],
      }),
    ),
    email: Type.Optional(
      Type.String({
        maxLength: MAX_EMAIL_LENGTH,
        description:
          'The address to enrich. When omitted, `fields.email` is used. Not checked here: an address that is not valid makes enrichment fail with `invalid_email`',
      }),
    ),
    fields: FormFields,
  },
  {
    title: 'FormSubmissionCreate',
    examples: [
      {
        token: 'eyJ0IjoidGVuYW50XzAxamRxMXZ6In0.q8Xh2v5p0dTzR3mL9sKcWbYfJ4nAeGu7',
        sessionId: '3f6c1a2e-8b4d-4e7a-9c1f-5d2b7e9a0c44',
        email: 'maya.chen@northwind-outfitters.com',
        fields: {
          name: 'Maya Chen',
          company: 'Northwind Outfitters',
          message: 'Can we see the Shopify Plus integration before our spring launch?',
        },
      },
    ],
    additionalProperties: false,
  },
);
export type FormSubmissionCreate = Static<typeof FormSubmissionCreate>;

const FormSubmissionId = Type.String({ pattern: '^form_[a-z0-9]{26}$' });

export const FormSubmissionAccepted = Type.Object(
  {
    formSubmissionId: FormSubmissionId,
    submittedAt: Timestamp,
  },
  { title: 'FormSubmissionAccepted' },
);
export type FormSubmissionAccepted = Static<typeof FormSubmissionAccepted>;

export const ENRICHMENT_FAILURES = ['no_email', 'invalid_email', 'provider_error'] as const;
export type EnrichmentFailure = (typeof ENRICHMENT_FAILURES)[number];

/** `data` of a `form.submitted` event. */
export const FormSubmittedData = Type.Object(
  {
    formSubmissionId: FormSubmissionId,
    pageId: Type.String(),
    audienceId: Type.String(),
    pageLinkId: Type.String(),
    email: Nullable(Type.String()),
    fields: Type.Record(Type.String(), Type.String()),
    submittedAt: Timestamp,
  },
  { title: 'FormSubmittedData' },
);
export type FormSubmittedData = Static<typeof FormSubmittedData>;

/** `data` of a `form.enrichment_failed` event. */
export const FormEnrichmentFailedData = Type.Object(
  {
    formSubmissionId: FormSubmissionId,
    reason: Type.Enum(ENRICHMENT_FAILURES),
  },
  { title: 'FormEnrichmentFailedData' },
);
export type FormEnrichmentFailedData = Static<typeof FormEnrichmentFailedData>;

/** How far enrichment got: who the submitter turned out to be, or why nobody was found. */
export const FormSubmissionEnrichment = Type.Object(
  {
    state: Type.Enum(ENRICHMENT_STATES, {
      description: '`pending` until enrichment ends, then `enriched` or `failed`',
    }),
    reason: Nullable(Type.Enum(ENRICHMENT_FAILURES), { description: 'Why it failed; null unless `failed`' }),
    personId: Nullable(Type.String(), {
      description: 'The person found or created for the address; null unless `enriched`',
    }),
    accountId: Nullable(Type.String(), {
      description:
        "That person's account; null unless `enriched`, and null for a person without one (a free-mail address)",
    }),
    finishedAt: Nullable(Timestamp, {
      description:
        'When enrichment ended; null while `pending` (and for submissions settled before it was recorded)',
    }),
  },
  { title: 'FormSubmissionEnrichment' },
);

/** What the visitor was served when they sent the form, as the page's token said (decisions §6). */
const FormSubmissionServed = {
  arm: Nullable(Type.Enum(ARMS), {
    description:
      'The arm the visitor was served: `personalized` (the published version) or `baseline` (version 0, for a visitor in the holdout). Null for a submission made before Tailor recorded it, unless its session said which (docs/forms.md#reading-submissions)',
  }),
  versionId: Nullable(Type.String({ pattern: '^version_[a-z0-9]{26}$' }), {
    description:
      "The audience's version the visitor was served (version 0's id for the baseline). Null for a submission made before Tailor recorded it, or from a page loaded before then",
  }),
};

/** A stored submission: what `form.submitted` carried, what its visitor was served, and its enrichment so far. */
export const FormSubmission = Type.Object(
  { ...FormSubmittedData.properties, ...FormSubmissionServed, enrichment: FormSubmissionEnrichment },
  {
    title: 'FormSubmission',
    examples: [
      {
        formSubmissionId: 'form_01jdq2b7x4m9k3v8n5t6r1c0wz',
        pageId: 'page_01jdq1vzk2y7h5m3n8p4q6r9st',
        audienceId: 'audience_01jdq1w3f6g8j2k4m7n9p1q3rs',
        pageLinkId: 'pagelink_01jdq1w8b2c4d6f8g1h3j5k7mn',
        email: 'maya.chen@northwind-outfitters.com',
        fields: { name: 'Maya Chen', message: 'Can we see the Shopify Plus integration?' },
        submittedAt: '+1763719200000',
        arm: 'personalized',
        versionId: 'version_01jdq1x5d7f9h2k4m6p8r1t3vw',
        enrichment: {
          state: 'enriched',
          reason: null,
          personId: 'person_01jdq2b8c5d7f9g2h4j6k8m1np',
          accountId: 'account_01jdq0a1b3c5d7f9g2h4j6k8mn',
          finishedAt: '+1763719200412',
        },
      },
    ],
  },
);
export type FormSubmission = Static<typeof FormSubmission>;

export const FormSubmissionListQuery = Type.Object({
  ...PageQuery,
  pageId: Type.Optional(IdString('page', 'Only the submissions made on this page')),
  audienceId: Type.Optional(IdString('audience', "Only the submissions made on this audience's page links")),
  enrichment: Type.Optional(
    Type.Enum(ENRICHMENT_STATES, { description: 'Only the submissions in this enrichment state' }),
  ),
});
export type FormSubmissionListQuery = Static<typeof FormSubmissionListQuery>;

export const FormSubmissionList = PagedList(FormSubmission, { title: 'FormSubmissionList' });
export const FormSubmissionParams = IdParams('form_submission_id');
