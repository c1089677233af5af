import type { AudienceVersionContent, AudienceVersionWithContent, TailorClient } from '@tailor/client';
import { NotSent, unwrap } from '../../api.ts';

/** Which version a view shows or edits. */
export interface VersionIds {
  pageId: string;
  audienceId: string;
  versionId: string;
}

/** The parts of a version's copy an edit may replace (docs/personalization.md#editing-a-version). */
export type Copy = Pick<AudienceVersionContent, 'headline' | 'subheadline' | 'sections'>;

const WAIT_MS = 1500;
const GENERATING = new Set(['queued', 'processing', 'pending']);

export function copyOf(content: AudienceVersionContent): Copy {
  return { headline: content.headline, subheadline: content.subheadline, sections: content.sections };
}

/**
 * The parts that differ from the saved copy, the only ones sent: the API judges the parts an edit
 * writes, so a part left alone is never refused for a rule that changed since it was generated.
 */
export function changedParts(saved: Copy, copy: Copy): Partial<Copy> {
  const edit: Partial<Copy> = {};
  if (copy.headline !== saved.headline) edit.headline = copy.headline;
  if (copy.subheadline !== saved.subheadline) edit.subheadline = copy.subheadline;
  if (JSON.stringify(copy.sections) !== JSON.stringify(saved.sections)) edit.sections = copy.sections;
  return edit;
}

/** Saves `edit` into a draft (the client checks it against the API's schema first, as every request). */
export async function saveEdit(
  client: TailorClient,
  { pageId, audienceId, versionId }: VersionIds,
  edit: Partial<Copy>,
): Promise<AudienceVersionWithContent> {
  return unwrap(
    client.PATCH('/v0/pages/{page_id}/audiences/{audience_id}/versions/{version_id}', {
      params: { path: { page_id: pageId, audience_id: audienceId, version_id: versionId } },
      body: { content: edit },
    }),
  );
}

const pause = () => new Promise((resolve) => setTimeout(resolve, WAIT_MS));

/**
 * Carries a draft's copy into a newer version: waits while that version is being generated, then
 * saves there the parts of `copy` that differ from what was generated (checked first, as every
 * request is). The newer version must end as a draft: one cancelled or published takes no edit, and
 * the copy stays where it was.
 */
export async function carryCopy(
  client: TailorClient,
  target: VersionIds,
  copy: Copy,
): Promise<AudienceVersionWithContent> {
  const path = {
    params: {
      path: { page_id: target.pageId, audience_id: target.audienceId, version_id: target.versionId },
    },
  };
  let version = await unwrap(
    client.GET('/v0/pages/{page_id}/audiences/{audience_id}/versions/{version_id}', path),
  );
  while (GENERATING.has(version.state)) {
    await pause();
    version = await unwrap(
      client.GET('/v0/pages/{page_id}/audiences/{audience_id}/versions/{version_id}', path),
    );
  }
  if (version.state !== 'draft' || !version.content || version.archivedAt)
    throw new NotSent({
      title: 'Edits not carried',
      detail: `Version ${version.versionNumber} is ${version.archivedAt ? 'archived' : version.state}, not a draft, so it takes no edit; the edits stay where they were.`,
    });
  const edit = changedParts(copyOf(version.content), copy);
  return Object.keys(edit).length === 0 ? version : saveEdit(client, target, edit);
}
