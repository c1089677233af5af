import type { TenantDb } from '../../db/tenant-db.ts';
import type { AudienceVersionWithContent, VersionContent } from '../../resources/audiences/schema.ts';
import type { AudienceRow, Draft } from '../../resources/audiences/service.ts';
import * as audiences from '../../resources/audiences/service.ts';
import { AppError, invalidFields } from '../../shared/errors.ts';
import { type CheckRules, checkContent, rulesFor } from '../personalization/check.ts';
import { metadataFor } from '../personalization/compose.ts';
import type { PersonalizationInput } from '../personalization/input.ts';
import { gather } from './gather.ts';
import { type AudienceVersionUpdate, EDITABLE } from './schema.ts';

/** Edits that lose the race to concurrent ones this many times in a row are answered 409 `conflict`. */
const EDIT_ATTEMPTS = 5;

type Edit = AudienceVersionUpdate['content'];

/**
 * What an edit is checked against: what generation would gather for the audience now, with the
 * context the version was queued with kept private too, should the audience's have changed since.
 */
async function rulesForEdit(
  db: TenantDb,
  audience: AudienceRow,
  draft: Draft,
): Promise<{ input: PersonalizationInput; rules: CheckRules }> {
  const input = await gather(db, audience, draft.row);
  const contexts = new Set([input.private.context, draft.row.supplementary_context].filter(Boolean));
  const checked = { ...input, private: { ...input.private, context: [...contexts].join('\n') } };
  return { input, rules: rulesFor(checked) };
}

/**
 * The copy with the edit applied. The title and description follow the headline and subheadline as
 * generation sets them, unless the audience's metadata sets them.
 */
function edited(content: VersionContent, edit: Edit, input: PersonalizationInput): VersionContent {
  const next = { ...content, ...edit };
  return { ...next, metadata: metadataFor(input, next.headline, next.subheadline) };
}

/**
 * The check stage's verdict on the parts the edit writes, each problem a field error at its place
 * in the request. The parts it leaves were checked when they were written, and the actions are the
 * page's, which an edit cannot change.
 */
function assertPasses(content: VersionContent, edit: Edit, rules: CheckRules): void {
  const written = EDITABLE.filter((part) => edit[part] !== undefined);
  const problems = checkContent(content, rules).filter((problem) =>
    written.some((part) => problem.path === `/${part}` || problem.path.startsWith(`/${part}/`)),
  );
  if (problems.length > 0)
    throw invalidFields(
      problems.map(({ path, problem }) => ({ path: `/body/content${path}`, message: problem })),
    );
}

/**
 * Edits a draft's copy (headline, subheadline, sections): it must pass the check that generated
 * copy passes, and it sets `editedAt`. Not found for an unknown version or one of another audience;
 * 409 for an archived audience or a version that is not a draft. An edit with no part changes
 * nothing.
 */
export async function editVersion(
  db: TenantDb,
  pageId: string,
  audienceId: string,
  versionId: string,
  { content: edit }: AudienceVersionUpdate,
  now: number,
): Promise<AudienceVersionWithContent> {
  const audience = await audiences.requireAudience(db, pageId, audienceId);
  // A version that is not the audience's is not found, whatever state the audience is in.
  let draft = await audiences.requireDraft(db, audienceId, versionId);
  audiences.assertNotArchived(audience);
  if (EDITABLE.every((part) => edit[part] === undefined))
    return audiences.versionOf(db, audienceId, versionId);
  const { input, rules } = await rulesForEdit(db, audience, draft);
  assertPasses(edited(draft.content, edit, input), edit, rules);
  for (let attempt = 1; attempt <= EDIT_ATTEMPTS; attempt++) {
    const saved = await audiences.saveEdit(db, draft, edited(draft.content, edit, input), now);
    if (saved) return saved;
    // Changed since it was read: another edit went first (kept, under this one), or it was published.
    draft = await audiences.requireDraft(db, audienceId, versionId);
  }
  throw new AppError('conflict', `Version ${versionId} kept changing under other edits; send the edit again`);
}
