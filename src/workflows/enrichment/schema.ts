import { type Static, Type } from 'typebox';
import { Nullable } from '../../http/schemas.ts';
import { AccountFields } from '../../resources/accounts/schema.ts';
import { Person } from '../../resources/persons/schema.ts';

/** `data` of a `form.enriched` event: the submitter, and the account they were linked to. */
export const FormEnrichedData = Type.Object(
  {
    formSubmissionId: Type.String(),
    person: Person,
    account: Nullable(AccountFields),
  },
  { title: 'FormEnrichedData' },
);
export type FormEnrichedData = Static<typeof FormEnrichedData>;
