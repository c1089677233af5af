import type { PageMetadata } from '../../http/page-metadata.ts';
import type { VersionContent } from '../../resources/audiences/schema.ts';
import type { AudienceWriting, VersionWriting } from '../../resources/audiences/service.ts';
import type { Mentions } from './mentions.ts';

/*
 * Taking a person out of what was written for them: every sentence that names them goes, whole, so
 * that no fragment of it ("Jane, see how…" → ", see how…") is left to read. What must not be empty
 * (a headline, a button) falls back to the page's own words, the baseline's; a section whose
 * heading or body is left empty goes with it. Plain text and the safe markdown subset alike: a
 * line keeps its list, quote or heading mark, and a line left without a sentence goes.
 */

/** The mark a markdown line may start with: a list item's, a quote's, a heading's. */
const LINE_MARK = /^\s*(?:[-*+]\s+|\d+[.)]\s+|>\s?|#{1,6}\s+)?/;
/** Between two sentences: the white space after a sentence's closing punctuation (and quote or bracket). */
const SENTENCE_BREAK = /(?<=[.!?…]["'”’)\]]*)(\s+)/;

function lineWithout(line: string, mentions: Mentions): string | undefined {
  if (!mentions(line)) return line;
  const mark = LINE_MARK.exec(line)?.[0] ?? '';
  // Split with its capture group: sentences at even places, the white space after each at odd ones.
  const pieces = line.slice(mark.length).split(SENTENCE_BREAK);
  let kept = '';
  for (let at = 0; at < pieces.length; at += 2) {
    const sentence = pieces[at] ?? '';
    if (sentence && !mentions(sentence)) kept += sentence + (pieces[at + 1] ?? '');
  }
  kept = kept.trimEnd();
  return kept ? mark + kept : undefined;
}

/** `text` without each sentence that names the person; unchanged when none does. */
export function textWithout(text: string, mentions: Mentions): string {
  if (!mentions(text)) return text;
  return text
    .split('\n')
    .flatMap((line) => lineWithout(line, mentions) ?? [])
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** An optional text without what names the person; null when nothing is left of it. */
function optionalWithout(text: string | null, mentions: Mentions): string | null {
  if (text === null || !mentions(text)) return text;
  return textWithout(text, mentions) || null;
}

/** Metadata without what names the person: a field left empty goes, as does a keyword that names them. */
export function metadataWithout(
  metadata: PageMetadata | undefined,
  mentions: Mentions,
): PageMetadata | undefined {
  if (!metadata) return metadata;
  const kept = Object.entries(metadata).flatMap(([field, value]: [string, string | string[]]) => {
    const text = Array.isArray(value)
      ? value.map((item) => textWithout(item, mentions)).filter(Boolean)
      : textWithout(value, mentions);
    return text.length > 0 ? [[field, text]] : [];
  });
  return kept.length > 0 ? (Object.fromEntries(kept) as PageMetadata) : undefined;
}

/**
 * A version's copy without the person: `baseline`, the page unpersonalized, stands in for a
 * headline, a button's title or its URL left empty.
 */
export function contentWithout(
  content: VersionContent,
  baseline: VersionContent,
  mentions: Mentions,
): VersionContent {
  const without = (text: string) => textWithout(text, mentions);
  const pageActions = new Map(baseline.actions.map((action) => [action.actionId, action]));
  return {
    headline: without(content.headline) || without(baseline.headline),
    subheadline: without(content.subheadline),
    sections: content.sections.flatMap((section) => {
      const heading = without(section.heading);
      const body = without(section.body);
      const emptied = (heading === '' && section.heading !== '') || (body === '' && section.body !== '');
      return emptied ? [] : [{ heading, body }];
    }),
    actions: content.actions.map((action) => {
      const page = pageActions.get(action.actionId);
      return {
        ...action,
        buttonTitle: without(action.buttonTitle) || without(page?.buttonTitle ?? ''),
        purpose: without(action.purpose),
        url: without(action.url) || without(page?.url ?? ''),
      };
    }),
    metadata: metadataWithout(content.metadata, mentions) ?? {},
  };
}

/** What an audience's client wrote, without the person. */
export function audienceWritingWithout(writing: AudienceWriting, mentions: Mentions): AudienceWriting {
  return {
    customName: optionalWithout(writing.customName, mentions),
    supplementaryContext: optionalWithout(writing.supplementaryContext, mentions),
    actionFormInstructionsOverride: optionalWithout(writing.actionFormInstructionsOverride, mentions),
    actionUrlOverride: optionalWithout(writing.actionUrlOverride, mentions),
    metadataOverride: metadataWithout(writing.metadataOverride, mentions),
  };
}

/** A version's context snapshot and copy without the person. */
export function versionWithout(
  version: VersionWriting,
  baseline: VersionContent,
  mentions: Mentions,
): VersionWriting {
  return {
    ...version,
    supplementaryContext: textWithout(version.supplementaryContext, mentions),
    content: version.content && contentWithout(version.content, baseline, mentions),
  };
}
