import type { TenantDb } from '../../db/tenant-db.ts';
import type { AudienceRow } from '../../resources/audiences/service.ts';
import * as audiences from '../../resources/audiences/service.ts';
import * as forms from '../../resources/forms/service.ts';
import type { ErasedPerson, EraseTraces } from '../../resources/persons/service.ts';
import * as events from '../../resources/webhooks/events.ts';
import { retireServedPages } from '../page-view/served.ts';
import { type Mentions, mentionsOf } from './mentions.ts';
import { audienceWritingWithout, versionWithout } from './redaction.ts';

/**
 * A person's erasure beyond their own row and log (docs/security.md#erasure), in the transaction
 * that deletes them: the pages made for them say nothing of them any more, and no node serves, and
 * no table keeps, a page rendered before; their form submissions go, with the events that carry
 * their details and those events' deliveries not yet made.
 */

const CANCELLED_NOTE =
  'Cancelled: the person this audience was for was erased before its generation ended. Generate again for a version written for the audience as it is now.';

/**
 * Takes the person out of one of their audiences: generation under way is cancelled (it drew on
 * them), every generated version's copy and context snapshot loses each sentence naming them, and
 * the audience becomes their account's (everyone at the company) or, without one, anyone's, its
 * own texts without them too. The baseline (version 0) is the page's own words and stays.
 */
async function eraseFromAudience(
  tx: TenantDb,
  audience: AudienceRow,
  person: ErasedPerson,
  mentions: Mentions,
  now: number,
): Promise<void> {
  await audiences.cancelUnfinished(tx, audience.id, now, CANCELLED_NOTE);
  // Read after the cancel: a generation that ended first has its copy here, and one that had not
  // can no longer store it.
  const versions = await audiences.versionWritingOf(tx, audience.id);
  const baseline = versions.find((version) => version.versionNumber === 0)?.content;
  if (!baseline) throw new Error(`Audience ${audience.id} lost its baseline`);
  for (const version of versions) {
    if (version.versionNumber === 0) continue;
    const rewritten = versionWithout(version, baseline, mentions);
    if (JSON.stringify(rewritten) !== JSON.stringify(version)) await audiences.rewriteVersion(tx, rewritten);
  }
  const writing = audienceWritingWithout(audiences.writingOf(audience), mentions);
  await audiences.reassignAudience(tx, audience.id, { accountId: person.accountId, writing }, now);
}

/**
 * The events that carry the person: those naming them (their name or email in a form's fields, a
 * version's context) and those holding their id or one of their submissions' ids. Candidates are
 * found by what their data holds, as JSON strings (quoted, so that no longer id matches): the ids,
 * the email, and the ids of the person's audiences, whose version events carry their context.
 */
async function eventsCarrying(
  tx: TenantDb,
  person: ErasedPerson,
  held: { audienceIds: string[]; submissionIds: string[] },
  mentions: Mentions,
): Promise<string[]> {
  const ids = [person.personId, ...held.submissionIds].map((id) => JSON.stringify(id));
  const email = person.email === null ? [] : [JSON.stringify(person.email)];
  const audienceIds = held.audienceIds.map((id) => JSON.stringify(id));
  const candidates = await events.eventsHolding(tx, [...ids, ...email, ...audienceIds]);
  return candidates
    .filter((event) => mentions(event.data) || ids.some((id) => event.data.includes(id)))
    .map((event) => event.id);
}

/** Erases what names `person` outside their row and log; answers EraseTraces (src/wiring.ts). */
export const erasePersonTraces: EraseTraces = async (tx, person, now) => {
  const mentions = mentionsOf(person);
  const theirs = await audiences.audiencesOfPerson(tx, person.personId);
  for (const audience of theirs) await eraseFromAudience(tx, audience, person, mentions, now);
  const submissionIds = await forms.eraseSubmissionsOf(tx, person);
  const audienceIds = theirs.map((audience) => audience.id);
  await events.eraseEvents(tx, await eventsCarrying(tx, person, { audienceIds, submissionIds }, mentions));
  await retireServedPages(tx);
};
