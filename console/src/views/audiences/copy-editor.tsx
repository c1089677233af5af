import type { Audience, AudienceVersionContent, AudienceVersionWithContent } from '@tailor/client';
import { useEffect, useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { Field, SubmitForm, TextArea, TextInput } from '../../components/forms.tsx';
import { Rows } from '../../components/rows.tsx';
import { useAction } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession } from '../../session.tsx';
import './copy-editor.css';

/** Which version a view shows or edits. */
export interface VersionIds {
  pageId: string;
  audienceId: string;
  versionId: string;
}

/** The parts of a version's copy an edit may replace (docs/personalization.md#editing-a-version). */
type Copy = Pick<AudienceVersionContent, 'headline' | 'subheadline' | 'sections'>;
type Section = Copy['sections'][number];

/** As the API bounds them: more sections are refused, so the form offers no more. */
const MAX_SECTIONS = 4;
const MAX_HEADLINE = 90;
const MAX_SUBHEADLINE = 300;
const BLANK_SECTION: Section = { heading: '', body: '' };

function copyOf(content: AudienceVersionContent): Copy {
  return { headline: content.headline, subheadline: content.subheadline, sections: content.sections };
}

/**
 * The parts that differ from the saved copy, the only ones sent: the API judges the parts an edit
 * writes, so a part left alone is never refused for a rule that changed since it was generated.
 */
function changedParts(saved: Copy, copy: Copy): Partial<Copy> {
  const edit: Partial<Copy> = {};
  if (copy.headline !== saved.headline) edit.headline = copy.headline;
  if (copy.subheadline !== saved.subheadline) edit.subheadline = copy.subheadline;
  if (JSON.stringify(copy.sections) !== JSON.stringify(saved.sections)) edit.sections = copy.sections;
  return edit;
}

interface CopyEditorProps {
  ids: VersionIds;
  /** A draft, with its content. */
  version: AudienceVersionWithContent & { content: AudienceVersionContent };
  /** The audience's latest version: the one that publishing publishes. */
  latest: AudienceVersionWithContent;
  onSaved: (version: AudienceVersionWithContent) => void;
  onPublished: (audience: Audience) => void;
  /** The audience has a newer version than the list shown: it must be read again. */
  onStale: () => void;
}

/**
 * A draft's headline, subheadline and sections, saved with PATCH …/versions/{versionId}; each part
 * the API refuses shows its reason beside it. Publishing publishes the audience's latest version, so
 * it is offered only when this draft is that version, after saving what is unsaved.
 */
export function CopyEditor({ ids, version, latest, onSaved, onPublished, onStale }: CopyEditorProps) {
  const { client } = useSession();
  const saved = copyOf(version.content);
  const [copy, setCopy] = useState<Copy>(saved);
  const [status, setStatus] = useState('');
  // Another version opened, or this one saved: the form starts again from the copy as stored.
  useEffect(() => setCopy(copyOf(version.content)), [version.versionId, version.editedAt]);

  const change = (next: Copy) => {
    setCopy(next);
    setStatus('');
  };
  const edit = changedParts(saved, copy);
  const dirty = Object.keys(edit).length > 0;
  const isLatest = latest.versionId === version.versionId;
  const audiencePath = { params: { path: { page_id: ids.pageId, audience_id: ids.audienceId } } };

  const save = async () => {
    const answer = await unwrap(
      client.PATCH('/v0/pages/{page_id}/audiences/{audience_id}/versions/{version_id}', {
        params: {
          path: { page_id: ids.pageId, audience_id: ids.audienceId, version_id: ids.versionId },
        },
        body: { content: edit },
      }),
    );
    onSaved(answer);
  };
  const act = useAction(async (action: 'save' | 'publish') => {
    setStatus('');
    if (dirty) await save();
    if (action === 'save') {
      setStatus('Saved: the preview shows the edit.');
      return;
    }
    // Publishing takes the latest version, whichever it is: one made since this list was read
    // would be published in this draft's place.
    const audience = await unwrap(client.GET('/v0/pages/{page_id}/audiences/{audience_id}', audiencePath));
    if (audience.latestVersion.versionId !== version.versionId) {
      onStale();
      return;
    }
    onPublished(
      await unwrap(client.POST('/v0/pages/{page_id}/audiences/{audience_id}/publish', audiencePath)),
    );
  });

  const sectionPath = (index: number, part: keyof Section) => `content/sections/${index}/${part}`;
  return (
    <section class="card copy-editor" aria-labelledby="copy-editor-heading">
      <h2 id="copy-editor-heading">Edit the copy</h2>
      <SubmitForm problem={act.failure} onSubmit={() => void act.run('save')}>
        <Field
          label="Headline"
          name="content/headline"
          failure={act.failure}
          hint={`Plain text, up to ${MAX_HEADLINE} characters.`}
        >
          {(control) => (
            <TextInput
              {...control}
              value={copy.headline}
              onValue={(headline) => change({ ...copy, headline })}
            />
          )}
        </Field>
        <Field
          label="Subheadline"
          name="content/subheadline"
          failure={act.failure}
          hint={`Plain text, up to ${MAX_SUBHEADLINE} characters; empty for none.`}
        >
          {(control) => (
            <TextArea
              {...control}
              value={copy.subheadline}
              onValue={(subheadline) => change({ ...copy, subheadline })}
            />
          )}
        </Field>
        <Rows<Section>
          legend="Sections"
          noun="Section"
          items={copy.sections}
          blank={BLANK_SECTION}
          max={MAX_SECTIONS}
          movable
          onChange={(sections) => change({ ...copy, sections })}
          hint="Shown in this order, below the headline."
        >
          {(section, update, index) => (
            <>
              <Field label="Heading" name={sectionPath(index, 'heading')} failure={act.failure}>
                {(control) => (
                  <TextInput
                    {...control}
                    value={section.heading}
                    onValue={(heading) => update({ heading })}
                  />
                )}
              </Field>
              <Field
                label="Body"
                name={sectionPath(index, 'body')}
                failure={act.failure}
                hint={
                  <>
                    Safe markdown: <code>**bold**</code>, <code>*italic*</code>, <code>[links](url)</code> to
                    the page's actions, <code>- </code> lists; no HTML.
                  </>
                }
              >
                {(control) => (
                  <TextArea {...control} value={section.body} onValue={(body) => update({ body })} />
                )}
              </Field>
            </>
          )}
        </Rows>
        <div class="actions">
          <button type="submit" disabled={act.pending || !dirty}>
            Save
          </button>
          {dirty && (
            <button type="button" disabled={act.pending} onClick={() => change(saved)}>
              Undo changes
            </button>
          )}
          {isLatest && (
            <button
              type="button"
              class="primary"
              disabled={act.pending}
              onClick={() => void act.run('publish')}
            >
              {dirty ? 'Save and publish' : 'Publish'} version {version.versionNumber}
            </button>
          )}
          <span class="muted" role="status">
            {act.pending ? 'Sending…' : status}
          </span>
        </div>
        {!isLatest && (
          <p class="notice warn">
            Version {latest.versionNumber} is newer: publishing publishes the latest version, so this draft
            can be edited but not published.{' '}
            <Link href={`/pages/${ids.pageId}/audiences/${ids.audienceId}`}>See the audience's versions</Link>
            .
          </p>
        )}
      </SubmitForm>
    </section>
  );
}
