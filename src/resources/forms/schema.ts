import { type Static, Type } from 'typebox';
import { Nullable, Timestamp } from '../../http/schemas.ts';
import { MAX_EMAIL_LENGTH } from '../../shared/email.ts';

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
          "The visitor's session id, as reported to /v0/public/events; the session counts the submission",
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

export const FormSubmissionAccepted = Type.Object(
  {
    formSubmissionId: Type.String({ pattern: '^form_[a-z0-9]{26}$' }),
    submittedAt: Timestamp,
  },
  { title: 'FormSubmissionAccepted' },
);
export type FormSubmissionAccepted = Static<typeof FormSubmissionAccepted>;

export const ENRICHMENT_FAILURES = [
  'no_email',
  'invalid_email',
  'free_mail_domain',
  'provider_error',
] as const;
export type EnrichmentFailure = (typeof ENRICHMENT_FAILURES)[number];

/** `data` of a `form.submitted` event. */
export const FormSubmittedData = Type.Object(
  {
    formSubmissionId: Type.String(),
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
    formSubmissionId: Type.String(),
    reason: Type.Enum(ENRICHMENT_FAILURES),
  },
  { title: 'FormEnrichmentFailedData' },
);
export type FormEnrichmentFailedData = Static<typeof FormEnrichmentFailedData>;
