import { type Static, Type } from 'typebox';
import { AccountFields } from '../../resources/accounts/schema.ts';
import { Person } from '../../resources/persons/schema.ts';

/** An account as the API shows it: its fields and the persons linked to it. */
export const Account = Type.Object(
  {
    ...AccountFields.properties,
    linkedPersons: Type.Array(Person, {
      description: 'Up to 100 linked persons, most recently updated first',
    }),
  },
  { title: 'Account' },
);
export type Account = Static<typeof Account>;
