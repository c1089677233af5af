import type { AudienceVersionWithContent } from '@tailor/client';
import './built-in-note.css';

/** The worked example of connecting a model, in the guides this server serves (src/http/guides.ts). */
export const CONNECT_A_MODEL = '/guides/personalization#connecting-a-language-model';

/** The personalizer that writes without a model (`generatedBy`). */
const BUILT_IN = 'built-in';

interface BuiltInNoteProps {
  version: Pick<AudienceVersionWithContent, 'generatedBy' | 'generationNote'>;
  /** One line, for a list of versions. */
  short?: boolean;
}

/**
 * Said wherever a draft written by the built-in personalizer is shown (decisions §7): its copy was
 * assembled from the knowledge without a language model, and how to connect one. When a model is
 * connected but its answers could not be used, the version's own note says why, so only the first
 * half is said.
 */
export function BuiltInNote({ version, short }: BuiltInNoteProps) {
  if (version.generatedBy !== BUILT_IN) return null;
  const modelFailed = version.generationNote !== null;
  const guide = (
    <a href={CONNECT_A_MODEL} target="_blank" rel="noopener">
      {short ? 'how to connect one' : 'Connecting a language model'}
    </a>
  );
  if (short)
    return (
      <p class="version-note muted">Written without a language model{modelFailed ? '.' : <>: {guide}.</>}</p>
    );
  return (
    <div class="notice built-in-note">
      <p>
        <strong>Written without a language model.</strong> The built-in personalizer assembled this copy from
        your topics' own sentences, chosen for this audience and its guidance.
      </p>
      {!modelFailed && (
        <p>
          No model is connected. Set <code>TAILOR_LLM_BASE_URL</code> on the server to an OpenAI-compatible
          endpoint (a local one works) and the copy of each new version is written for its visitor: {guide}{' '}
          shows how, step by step.
        </p>
      )}
    </div>
  );
}
