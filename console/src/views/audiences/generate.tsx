import type { Audience, AudienceVersionContent, AudienceVersionWithContent } from '@tailor/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { unwrap } from '../../api.ts';
import { ProblemMessage } from '../../components/problem.tsx';
import { type Action, useAction } from '../../hooks.ts';
import { Link } from '../../router.tsx';
import { useSession } from '../../session.tsx';
import { carryCopy, copyOf } from './edits.ts';
import './generate.css';

interface Ids {
  pageId: string;
  audienceId: string;
}

type EditedDraft = AudienceVersionWithContent & { content: AudienceVersionContent };

/** What is under way: a question asked, edits being carried, or carried. */
type Step =
  | { asking: EditedDraft }
  | { carrying: { from: number; to: number } }
  | { carried: { from: number; to: AudienceVersionWithContent } }
  | null;

type Choice = 'start' | 'carry' | 'plain';

export interface Generation {
  step: Step;
  act: Action<[Choice]>;
  cancel: () => void;
}

/**
 * "Generate a new version". Publishing publishes the latest version, so a new one strands the edits
 * of the latest draft: when that draft has edits, it asks first, and can generate and then carry the
 * draft's copy into the new version once it is a draft (edits.ts, carryCopy).
 */
export function useGeneration(ids: Ids, audience: Audience | undefined, onGenerated: (a: Audience) => void) {
  const { client } = useSession();
  const [step, setStep] = useState<Step>(null);
  const path = { params: { path: { page_id: ids.pageId, audience_id: ids.audienceId } } };

  /** The latest version when it is a draft whose copy was edited: what a new version would strand. */
  const editedDraft = async (): Promise<EditedDraft | null> => {
    if (audience?.status !== 'draft') return null;
    const latest = await unwrap(
      client.GET('/v0/pages/{page_id}/audiences/{audience_id}/versions/{version_id}', {
        params: { path: { ...path.params.path, version_id: audience.latestVersion.versionId } },
      }),
    );
    return latest.editedAt && latest.content ? { ...latest, content: latest.content } : null;
  };
  const generate = async () => {
    const generated = await unwrap(client.POST('/v0/pages/{page_id}/audiences/{audience_id}/versions', path));
    onGenerated(generated);
    return generated;
  };

  const act = useAction(async (choice: Choice) => {
    if (choice === 'start') {
      const stranded = await editedDraft();
      if (stranded) setStep({ asking: stranded });
      else {
        setStep(null);
        await generate();
      }
      return;
    }
    const asked = step && 'asking' in step ? step.asking : null;
    setStep(null);
    const generated = await generate();
    if (choice === 'plain' || !asked) return;
    const to = generated.latestVersion;
    setStep({ carrying: { from: asked.versionNumber, to: to.versionNumber } });
    try {
      const carried = await carryCopy(client, { ...ids, versionId: to.versionId }, copyOf(asked.content));
      setStep({ carried: { from: asked.versionNumber, to: carried } });
    } catch (error) {
      setStep(null);
      throw error;
    }
  });
  return { step, act, cancel: () => setStep(null) } satisfies Generation;
}

/** The question before a generation that would strand edits, and how carrying them goes. */
export function GenerationSteps({ ids, generation }: { ids: Ids; generation: Generation }) {
  const { step, act, cancel } = generation;
  const first = useRef<HTMLButtonElement>(null);
  const asking = step && 'asking' in step ? step.asking : null;
  // Focus moves to the answers once they can be pressed (the question comes while the button that
  // asked it is still pending).
  const answerable = asking !== null && !act.pending;
  useEffect(() => {
    if (answerable) first.current?.focus();
  }, [answerable]);
  const previewHref = (versionId: string) =>
    `/pages/${ids.pageId}/audiences/${ids.audienceId}/versions/${versionId}`;
  if (asking)
    return (
      <section class="notice warn generate-question" aria-labelledby="generate-question">
        <p id="generate-question">
          <strong>Version {asking.versionNumber} has edits that are not published.</strong> A new version
          would become the latest, and only the latest is published: version {asking.versionNumber} could
          still be edited, but no longer published. Carry its copy into the new version once it is generated?
        </p>
        <p class="actions">
          <button
            type="button"
            class="primary"
            ref={first}
            disabled={act.pending}
            onClick={() => void act.run('carry')}
          >
            Generate and carry my edits
          </button>
          <button type="button" disabled={act.pending} onClick={() => void act.run('plain')}>
            Generate without my edits
          </button>
          <button type="button" disabled={act.pending} onClick={cancel}>
            Keep version {asking.versionNumber}
          </button>
        </p>
      </section>
    );
  return (
    <>
      <div role="status" aria-live="polite">
        {step && 'carrying' in step && (
          <p class="notice">
            Generating version {step.carrying.to}; version {step.carrying.from}'s edits go into it once it is
            a draft…
          </p>
        )}
        {step && 'carried' in step && (
          <p class="notice">
            Version {step.carried.from}'s edits are in version {step.carried.to.versionNumber}.{' '}
            <Link href={previewHref(step.carried.to.versionId)}>
              Open version {step.carried.to.versionNumber}
            </Link>{' '}
            to check it beside its preview and publish it.
          </p>
        )}
      </div>
      <ProblemMessage failure={act.failure} />
    </>
  );
}
