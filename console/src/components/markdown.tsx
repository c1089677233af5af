import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { RenderedMarkdown } from '../../../src/shared/markdown-html.ts';

/**
 * Page copy as a page shows it, by the very code that renders the version preview and the served
 * page (src/shared/markdown-html.ts: one rendering, docs/architecture.md), whatever the entry's
 * `content.type` says. Its HTML is inserted as it comes: every text in it is escaped by the code that
 * escapes the page, and the console's CSP forbids inline script anyway.
 */

type Renderer = typeof import('../../../src/shared/markdown-html.ts');

let rendererLoad: Promise<Renderer> | undefined;

/** The renderer (with markdown-it), fetched with the first preview so that views without one load less. */
function loadRenderer(): Promise<Renderer> {
  rendererLoad ??= import('../../../src/shared/markdown-html.ts');
  return rendererLoad;
}

/** `source` as pages render it, with what they show otherwise than written; null while the renderer loads. */
export function useRenderedMarkdown(source: string): RenderedMarkdown | null {
  const [renderer, setRenderer] = useState<Renderer | null>(null);
  useEffect(() => {
    let gone = false;
    void loadRenderer().then((loaded) => {
      if (!gone) setRenderer(loaded);
    });
    return () => {
      gone = true;
    };
  }, []);
  return useMemo(() => (renderer ? renderer.renderMarkdown(source) : null), [renderer, source]);
}

/**
 * A link of a preview opens in another tab, without access to the console: followed in place, it
 * would leave the console (and an editor's unsaved text). The HTML stays the page's own.
 */
function openLinksApart(event: MouseEvent): void {
  const link = (event.target as Element | null)?.closest('a[href]');
  if (!(link instanceof HTMLAnchorElement)) return;
  event.preventDefault();
  window.open(link.href, '_blank', 'noopener,noreferrer');
}

export function MarkdownHtml({ rendered }: { rendered: RenderedMarkdown | null }) {
  const box = useRef<HTMLDivElement>(null);
  const shown = rendered !== null;
  useEffect(() => {
    const element = box.current;
    element?.addEventListener('click', openLinksApart);
    return () => element?.removeEventListener('click', openLinksApart);
  }, [shown]);
  if (!rendered) return <p class="muted">Loading the preview…</p>;
  return <div class="markdown" ref={box} dangerouslySetInnerHTML={{ __html: rendered.html }} />;
}

/** `source` in the safe markdown subset, as a page shows it. */
export function Markdown({ source }: { source: string }) {
  return <MarkdownHtml rendered={useRenderedMarkdown(source)} />;
}
