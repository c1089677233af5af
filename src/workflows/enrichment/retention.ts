import type { ScheduledTask } from '../../jobs/types.ts';
import * as forms from '../../resources/forms/service.ts';
import * as logs from '../../resources/persons/log-service.ts';
import { deleteDeliveredEventsBefore } from '../../resources/webhooks/events.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Every hour, what visitors wrote through forms is deleted once older than `retentionDays`
 * (TAILOR_FORM_RETENTION_DAYS), wherever it is kept: the submissions, their `form.submitted`
 * events (which carry the fields; once delivered, and all events go after 30 days anyway) and the
 * person log entries made from them. The person found or made stays: a lead is the tenant's record.
 */
export function formRetention(retentionDays: number): ScheduledTask {
  return {
    name: 'forms.purge',
    everyMs: 60 * 60 * 1000,
    async run({ database, now }) {
      const before = now - retentionDays * DAY_MS;
      await forms.purgeSubmissionsBefore(database.acrossTenants(), before);
      await deleteDeliveredEventsBefore(database.acrossTenants(), 'form.submitted', before);
      await logs.deleteVisitorEntriesBefore(database.acrossTenants(), before);
    },
  };
}
