import { type Static, Type } from 'typebox';
import { IdParams, PagedList, PageQuery, Timestamp } from '../../http/schemas.ts';

const Text = Type.String({ minLength: 1, maxLength: 65536, description: 'Plain text' });

export const PersonLog = Type.Object({
  personLogId: Type.String(),
  personId: Type.String(),
  kind: Type.Union([Type.Literal('note'), Type.Literal('activity')], {
    description: 'note: written by a user; activity: written by Tailor (form submissions, enrichment)',
  }),
  text: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type PersonLog = Static<typeof PersonLog>;

export const PersonLogCreate = Type.Object({ text: Text }, { additionalProperties: false });
export const PersonLogUpdate = Type.Object(
  { text: Type.String({ minLength: 1, maxLength: 65536, description: 'Replacement plain text of a note' }) },
  { additionalProperties: false },
);

export const Success = Type.Object({ success: Type.Boolean() });
export const PersonLogList = PagedList(PersonLog);
export const PersonLogListQuery = Type.Object({ ...PageQuery });
export const PersonLogParams = IdParams('person_id', 'person_log_id');
