import { type Static, Type } from 'typebox';
import { Nullable, Timestamp } from '../../http/schemas.ts';
import { Person } from '../persons/schema.ts';

/** Bounds of a submission: generous for a contact form, small enough for a sendBeacon body. */
export const MAX_FIELDS = 50;
export const MAX_FIELD_NAME = 100;
export const MAX_FIELD_VALUE = 5000;
export const MAX_EMAIL = 320;

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
        maxLength: MAX_EMAIL,
        description:
          'The address to enrich. When omitted, `fields.email` is used. Not checked here: an address that is not valid makes enrichment fail with `invalid_email`',
      }),
    ),
    fields: FormFields,
  },
  { additionalProperties: false },
);
export type FormSubmissionCreate = Static<typeof FormSubmissionCreate>;

export const FormSubmissionAccepted = Type.Object({
  formSubmissionId: Type.String({ pattern: '^form_[a-z0-9]{26}$' }),
  submittedAt: Timestamp,
});
export type FormSubmissionAccepted = Static<typeof FormSubmissionAccepted>;

export const ENRICHMENT_FAILURES = [
  'no_email',
  'invalid_email',
  'free_mail_domain',
  'provider_error',
] as const;
export type EnrichmentFailure = (typeof ENRICHMENT_FAILURES)[number];

/** `data` of a `form.submitted` event. */
export const FormSubmittedData = Type.Object({
  formSubmissionId: Type.String(),
  pageId: Type.String(),
  audienceId: Type.String(),
  pageLinkId: Type.String(),
  email: Nullable(Type.String()),
  fields: Type.Record(Type.String(), Type.String()),
  submittedAt: Timestamp,
});
export type FormSubmittedData = Static<typeof FormSubmittedData>;

/** The account a submitter was linked to, as in an account search item (without the count). */
export const EnrichedAccount = Type.Object({
  accountId: Type.String(),
  domain: Type.String(),
  name: Nullable(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  latestActivityAt: Nullable(Timestamp),
});
export type EnrichedAccount = Static<typeof EnrichedAccount>;

/** `data` of a `form.enriched` event. */
export const FormEnrichedData = Type.Object({
  formSubmissionId: Type.String(),
  person: Person,
  account: Nullable(EnrichedAccount),
});
export type FormEnrichedData = Static<typeof FormEnrichedData>;

/** `data` of a `form.enrichment_failed` event. */
export const FormEnrichmentFailedData = Type.Object({
  formSubmissionId: Type.String(),
  reason: Type.Enum(ENRICHMENT_FAILURES),
});
export type FormEnrichmentFailedData = Static<typeof FormEnrichmentFailedData>;
