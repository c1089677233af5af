import type { MarkdownIt, Token } from 'markdown-it';
import { type ComponentChildren, h } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';

/**
 * Entry text as a generated page shows it: the safe markdown subset of
 * src/workflows/personalization/markdown.ts (paragraphs, lists, bold, italic, links), whatever the
 * entry's `content.type` says. The text is parsed as the server parses it, so everything else a
 * writer may type shows as the server shows it: a heading as a bold paragraph, a quote or code as
 * plain text, an image as its alt text, raw HTML not at all. Tokens become Preact elements; no
 * string of HTML is ever inserted, so nothing typed can reach the DOM as markup.
 */

let parserLoad: Promise<MarkdownIt> | undefined;

/** markdown-it, fetched with the first preview so that views without one load less. */
function loadParser(): Promise<MarkdownIt> {
  parserLoad ??= import('markdown-it').then(({ default: Parser }) => {
    // As the server's: raw HTML is recognised so that it can be dropped, every link is read as a
    // link so that its syntax never shows, and renderLink below decides which may stay one.
    const parser = new Parser('commonmark', { html: true, linkify: false, typographer: false });
    parser.validateLink = () => true;
    return parser;
  });
  return parserLoad;
}

/** A link the preview may follow: a web or mail address, opened in a new tab; any other shows as text. */
function linkProps(href: string): Record<string, string> | null {
  return /^(https?:|mailto:)/i.test(href) ? { href, target: '_blank', rel: 'noopener noreferrer' } : null;
}

/** An element being built: its tag (null: its children go to its parent) and its children so far. */
interface Frame {
  tag: string | null;
  props: Record<string, string> | null;
  children: ComponentChildren[];
}

/** Builds elements from markdown-it's flat open/close token stream. */
class Builder {
  private readonly stack: Frame[] = [{ tag: null, props: null, children: [] }];

  private get top(): Frame {
    return this.stack[this.stack.length - 1] as Frame;
  }

  add(child: ComponentChildren): void {
    this.top.children.push(child);
  }

  open(tag: string | null, props: Record<string, string> | null = null): void {
    this.stack.push({ tag, props, children: [] });
  }

  close(): void {
    if (this.stack.length === 1) return;
    const frame = this.stack.pop() as Frame;
    if (frame.tag === null) this.top.children.push(...frame.children);
    else this.top.children.push(h(frame.tag, frame.props, ...frame.children));
  }

  done(): ComponentChildren[] {
    while (this.stack.length > 1) this.close();
    return this.top.children;
  }
}

const INLINE_TAGS: Record<string, string> = {
  strong_open: 'strong',
  em_open: 'em',
};

function inline(tokens: Token[], out: Builder): void {
  for (const token of tokens) {
    switch (token.type) {
      case 'text':
      case 'code_inline':
      case 'image':
        out.add(token.content);
        break;
      case 'softbreak':
        out.add('\n');
        break;
      case 'hardbreak':
        out.add(h('br', null));
        break;
      case 'strong_open':
      case 'em_open':
        out.open(INLINE_TAGS[token.type] ?? null);
        break;
      case 'link_open': {
        const props = linkProps(String(token.attrGet('href') ?? ''));
        out.open(props ? 'a' : null, props);
        break;
      }
      case 'strong_close':
      case 'em_close':
      case 'link_close':
        out.close();
        break;
      default:
        // html_inline and anything the subset does not have: neither the markup nor its markers show.
        break;
    }
  }
}

const BLOCK_OPENS: Record<string, string> = {
  bullet_list_open: 'ul',
  ordered_list_open: 'ol',
  list_item_open: 'li',
};
const BLOCK_CLOSES = new Set(['bullet_list_close', 'ordered_list_close', 'list_item_close']);

function blocks(tokens: Token[]): ComponentChildren[] {
  const out = new Builder();
  for (const token of tokens) {
    if (token.type === 'inline') inline(token.children ?? [], out);
    else if (token.type === 'paragraph_open' && !token.hidden) out.open('p');
    else if (token.type === 'paragraph_close' && !token.hidden) out.close();
    else if (token.type === 'heading_open') {
      out.open('p');
      out.open('strong');
    } else if (token.type === 'heading_close') {
      out.close();
      out.close();
    } else if (token.type === 'code_block' || token.type === 'fence')
      out.add(h('p', null, token.content.trim()));
    else if (BLOCK_OPENS[token.type]) out.open(BLOCK_OPENS[token.type] ?? null);
    else if (BLOCK_CLOSES.has(token.type)) out.close();
  }
  return out.done();
}

/** `source` in the safe markdown subset, as a page shows it. */
export function Markdown({ source }: { source: string }) {
  const [parser, setParser] = useState<MarkdownIt | null>(null);
  useEffect(() => {
    let gone = false;
    void loadParser().then((loaded) => {
      if (!gone) setParser(loaded);
    });
    return () => {
      gone = true;
    };
  }, []);
  const shown = useMemo(() => (parser ? blocks(parser.parse(source, {})) : null), [parser, source]);
  if (!shown) return <p class="muted">Loading the preview…</p>;
  return <div class="markdown">{shown}</div>;
}
