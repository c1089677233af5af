import MarkdownIt, { type Token } from 'markdown-it';
import { escapeHtml } from '../../shared/html.ts';

/**
 * The markdown that page copy may use, and nothing more: paragraphs, lists, bold, italic and links.
 * Everything else a writer may type is read (so that its markers never show) and shown as the text
 * it holds: a heading as a bold paragraph, a quote or code as plain text, an image as its alt text,
 * HTML not at all.
 */

const parser = new MarkdownIt('commonmark', { html: true, linkify: false, typographer: false });
// Every link is read as a link, so that its syntax never shows; which may stay one is decided below.
parser.validateLink = () => true;

/** Which links may stay links; the others show as their text. */
export type LinkPolicy = (href: string) => boolean;

interface Output {
  html: string;
  text: string;
}

function inline(tokens: Token[], allowLink: LinkPolicy, out: Output): void {
  const links: boolean[] = [];
  for (const token of tokens) {
    switch (token.type) {
      case 'text':
      case 'code_inline':
        out.html += escapeHtml(token.content);
        out.text += token.content;
        break;
      case 'image':
        out.html += escapeHtml(token.content);
        out.text += token.content;
        break;
      case 'softbreak':
        out.html += '\n';
        out.text += ' ';
        break;
      case 'hardbreak':
        out.html += '<br>';
        out.text += '\n';
        break;
      case 'strong_open':
      case 'strong_close':
      case 'em_open':
      case 'em_close':
        out.html += `<${token.nesting === -1 ? '/' : ''}${token.tag}>`;
        break;
      case 'link_open': {
        const href = String(token.attrGet('href') ?? '');
        const kept = allowLink(href);
        links.push(kept);
        if (kept) out.html += `<a href="${escapeHtml(href)}">`;
        break;
      }
      case 'link_close':
        if (links.pop()) out.html += '</a>';
        break;
      default:
        // html_inline and anything this subset does not have: neither the markup nor its markers show.
        break;
    }
  }
}

const BLOCK_TAGS: Record<string, string> = {
  bullet_list_open: '<ul>',
  bullet_list_close: '</ul>',
  ordered_list_open: '<ol>',
  ordered_list_close: '</ol>',
  list_item_open: '<li>',
  list_item_close: '</li>',
  heading_open: '<p><strong>',
  heading_close: '</strong></p>',
};

function render(source: string, allowLink: LinkPolicy): Output {
  const out: Output = { html: '', text: '' };
  for (const token of parser.parse(source, {})) {
    if (token.type === 'inline') inline(token.children ?? [], allowLink, out);
    else if (token.type === 'paragraph_open' && !token.hidden) out.html += '<p>';
    else if (token.type === 'paragraph_close' && !token.hidden) out.html += '</p>';
    else if (token.type === 'code_block' || token.type === 'fence') {
      out.html += `<p>${escapeHtml(token.content.trim())}</p>`;
      out.text += token.content.trim();
    } else if (BLOCK_TAGS[token.type]) out.html += BLOCK_TAGS[token.type];
    if (token.block && token.nesting === -1) out.text += '\n';
  }
  return { html: out.html, text: out.text.replace(/\n{2,}/g, '\n').trim() };
}

/** The HTML of page copy in the safe subset; links that `allowLink` refuses show as text. */
export function markdownHtml(source: string, allowLink: LinkPolicy): string {
  return render(source, allowLink).html;
}

/** The text a reader sees of page copy: no markers, a line per block. */
export function markdownText(source: string): string {
  return render(source, () => false).text;
}

/** Every link target written in page copy. */
export function markdownLinks(source: string): string[] {
  const hrefs: string[] = [];
  render(source, (href) => {
    hrefs.push(href);
    return false;
  });
  return hrefs;
}

/** Plain text as markdown that reads back as exactly that text. */
export function escapeMarkdown(text: string): string {
  return text.replace(/([\\`*_[\]<>#!|~])/g, '\\$1').replace(/^(\s*)(\d+)\./gm, '$1$2\\.');
}
