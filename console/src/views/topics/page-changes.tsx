import { useId } from 'preact/hooks';
import type { MarkdownChangeKind, RenderedMarkdown } from '../../../../src/shared/markdown-html.ts';

/** What each change the rendering reports means to the writer, in words, and what to do about it. */
const SAYS: Record<MarkdownChangeKind, { says: string; advice?: string }> = {
  heading: { says: 'Headings show as paragraphs, in bold unless they have bold or italic of their own' },
  html: { says: 'HTML shows as its text, without its tags' },
  script: { says: 'Scripts and styles are left out whole' },
  image: { says: 'Images show as their alt text (without one, not at all)' },
  code: { says: 'Code shows as plain text' },
  quote: { says: 'Quotes show as plain paragraphs' },
  'nested-list': { says: 'Lists inside lists are flattened: their items join the outer list' },
  link: {
    says: 'These links show as their text',
    advice: 'A page links only to web, mail and phone addresses, paths and #anchors.',
  },
  rule: { says: 'Horizontal rules are left out' },
  'line-break': {
    says: 'Line breaks inside a paragraph show as spaces',
    advice: 'Leave a blank line to start a new paragraph.',
  },
  marks: {
    says: 'Marks that close nothing show as written, and generated pages leave their sentence out',
    advice: 'Close them, or take them out.',
  },
  address: {
    says: 'Web addresses that are not links show as plain text, and generated pages leave their sentence out',
    advice: 'Write them as links: [words](https://…).',
  },
};

/** Examples of one kind of change shown at most, the rest counted. */
const EXAMPLES = 3;
const EXAMPLE_LENGTH = 40;

interface Said {
  kind: MarkdownChangeKind;
  examples: string[];
}

/** The changes grouped by kind, in the order they first occur, each with its distinct examples. */
function saidOf(rendered: RenderedMarkdown): Said[] {
  const byKind = new Map<MarkdownChangeKind, Said>();
  for (const { kind, text } of rendered.changes) {
    const said = byKind.get(kind) ?? { kind, examples: [] };
    byKind.set(kind, said);
    const example = text.length > EXAMPLE_LENGTH ? `${text.slice(0, EXAMPLE_LENGTH - 1)}…` : text;
    if (example && !said.examples.includes(example)) said.examples.push(example);
  }
  return [...byKind.values()];
}

/** `: a, b and 2 more.`, the period left out after an example that ends with one. */
function Examples({ examples }: { examples: string[] }) {
  const more = examples.length - EXAMPLES;
  const last = more > 0 ? 'more' : (examples[examples.length - 1] ?? '');
  const period = /[.!?]$/.test(last) ? '' : '.';
  if (examples.length === 0) return <>{period}</>;
  return (
    <>
      {': '}
      {examples.slice(0, EXAMPLES).map((example, index) => (
        <span key={example}>
          {index > 0 && ', '}
          <code>{example}</code>
        </span>
      ))}
      {more > 0 && ` and ${more} more`}
      {period}
    </>
  );
}

/**
 * Before saving, what a page will leave out or show otherwise than the text says, as the rendering
 * reports it while it makes the preview (the preview already shows it so).
 */
export function PageChanges({ rendered }: { rendered: RenderedMarkdown }) {
  const id = useId();
  const said = saidOf(rendered);
  const refused = rendered.changes.filter((change) => change.kind === 'link').length;
  const keptLinks = rendered.links.length > refused;
  if (said.length === 0 && !keptLinks) return null;
  return (
    <section class="page-changes" aria-labelledby={`${id}-heading`}>
      <h4 id={`${id}-heading`}>A page will show this differently</h4>
      <ul>
        {said.map(({ kind, examples }) => (
          <li key={kind}>
            {SAYS[kind].says}
            <Examples examples={examples} />
            {SAYS[kind].advice && ` ${SAYS[kind].advice}`}
          </li>
        ))}
        {keptLinks && (
          <li>
            A link stays a link on a generated page only when it goes to one of that page's actions (the
            address of one of its buttons); any other shows as its text.
          </li>
        )}
      </ul>
    </section>
  );
}
