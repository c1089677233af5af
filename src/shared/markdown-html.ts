import MarkdownIt, { type Token } from 'markdown-it';
import { escapeHtml } from './html.ts';
import { isSafeLink } from './safe-url.ts';

/**
 * Page copy's markdown as HTML, by one set of rules wherever it is shown: a topic entry's preview in
 * the console, a version's preview and the served page (decisions §7, "One rendering"), so that a
 * preview shows what the page shows. Copy may use paragraphs, lists, bold, italic and links, and
 * nothing more. Everything else a writer may type is read, so that its markers never show, and is
 * shown as the text it holds: a heading as a bold paragraph, a quote as its paragraphs, code as plain
 * text, an image as its alt text, HTML without its tags (a script or style block not at all), a
 * nested list's items in the outer list, a link a page may not have as its text. Each such change is
 * reported as it is made, so that an editor can say what the page will leave out or change.
 *
 * It imports markdown-it, the HTML escaper and the safe-URL rule alone: the console bundles it too
 * (docs/architecture.md).
 */

const parser = new MarkdownIt('commonmark', { html: true, linkify: false, typographer: false });
// Every link is read as a link, so that its syntax never shows; which may stay one is decided below.
parser.validateLink = () => true;

/** The tokens of `source` as every reader of page copy parses it. */
export function parseMarkdown(source: string): Token[] {
  return parser.parse(source, {});
}

/** Which links may stay links, beside the rule that a page links only to safe addresses. */
export type LinkPolicy = (href: string) => boolean;

/** What the page shows otherwise than the markdown says. */
export type MarkdownChangeKind =
  /** HTML tags are left out; the text between them shows. */
  | 'html'
  /** A script or style block is left out whole. */
  | 'script'
  /** A heading shows as a paragraph, in bold unless it has marks of its own. */
  | 'heading'
  /** An image shows as its alt text (nothing without one). */
  | 'image'
  /** Code shows as plain text. */
  | 'code'
  /** A quote shows as plain paragraphs. */
  | 'quote'
  /** A list inside a list: its items join the outer list. */
  | 'nested-list'
  /** A link shows as its text: its address is not one the page may link to. */
  | 'link'
  /** A horizontal rule is left out. */
  | 'rule'
  /** A line break inside a paragraph shows as a space. */
  | 'line-break'
  /** Markdown marks that pair with nothing show as written (`**`, `__`, `](`, a `#`). */
  | 'marks'
  /** A web address that is not a link shows as plain text. */
  | 'address';

export interface MarkdownChange {
  kind: MarkdownChangeKind;
  /** What it is about, as written or shown: the heading's text, the tag, the address… ('' when nothing tells). */
  text: string;
}

export interface RenderedMarkdown {
  html: string;
  /** What a reader sees: no marks, a line per block. */
  text: string;
  /** Every link address written, whether it stays a link or not. */
  links: string[];
  changes: MarkdownChange[];
}

/**
 * Marks a reader would see as marks in shown text (where markdown-it found nothing to pair them
 * with): bold and italic markers, a heading's #, a link's syntax. The personalizer's check refuses
 * copy that shows them (workflows/personalization/check.ts).
 */
export const MARKS_AS_WRITTEN = /\*\*|(?:^|\s)__\S|\S__(?:\s|$)|^\s*#{1,6}\s|\]\(/m;
/** A web address written as text rather than as a link (the check holds it to the page's actions too). */
export const BARE_ADDRESS = /\b(?:https?:\/\/|www\.)[^\s<>"')\]]+/i;
const SCRIPT_OR_STYLE = /<(script|style)\b[\s\S]*?<\/\1\s*>/gi;
const TAG_NAME = /<([a-z][a-z0-9-]*)/i;

/** The text an HTML block holds, as paragraphs: no tags, no comments, no scripts or styles. */
export function htmlBlockText(html: string): string[] {
  const text = html
    .replace(SCRIPT_OR_STYLE, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]*>/g, ' ');
  return parser.utils
    .unescapeAll(text)
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
}

/** The first tag of an HTML snippet, as `<name>`; '' for a comment or a declaration. */
function firstTag(html: string): string {
  const name = TAG_NAME.exec(html)?.[1];
  return name ? `<${name.toLowerCase()}>` : '';
}

/** The whitespace-separated word of `text` around `at`. */
function wordAt(text: string, at: number): string {
  const start = text.lastIndexOf(' ', at) + 1;
  const end = text.indexOf(' ', at);
  return text.slice(start, end === -1 ? undefined : end);
}

/** One block's inline run as HTML, as the text a reader sees, and that text outside its links. */
interface Run {
  html: string;
  text: string;
  unlinked: string;
}

/** The state of one rendering: what is written so far, and where in the source's blocks it is. */
class Rendering {
  html = '';
  text = '';
  readonly links: string[] = [];
  readonly changes: MarkdownChange[] = [];
  /** The outermost list being read (nested lists are flattened into it), and how deep it goes. */
  private list: { ordered: boolean; items: string[] } | undefined;
  private depth = 0;
  /** The blocks of the list item being read: each a piece of the item, joined by a space. */
  private item: string[] = [];
  private inHeading = false;
  /** A nested list began: its first block names it in the change. */
  private nestedPending = false;

  constructor(private readonly allowLink: LinkPolicy) {}

  private change(kind: MarkdownChangeKind, text: string): void {
    this.changes.push({ kind, text: text.trim() });
  }

  /** A block of shown text: a paragraph of its own, or a piece of the list item it is in. */
  private block(html: string, text: string, unlinked = text): void {
    if (!text.trim()) return;
    if (this.nestedPending) this.change('nested-list', text);
    this.nestedPending = false;
    const marks = MARKS_AS_WRITTEN.exec(text);
    if (marks) this.change('marks', wordAt(text, marks.index + marks[0].length - 1));
    const address = BARE_ADDRESS.exec(unlinked);
    if (address) this.change('address', address[0]);
    if (this.list) this.item.push(html);
    else this.html += `<p>${html}</p>`;
  }

  private endItem(): void {
    if (this.list && this.item.length > 0) this.list.items.push(`<li>${this.item.join(' ')}</li>`);
    this.item = [];
  }

  private inline(tokens: Token[]): Run {
    const run: Run = { html: '', text: '', unlinked: '' };
    /** The marks open around what is being written: a mark around nothing is left out. */
    const open: { opener: string; closer: string; at: number }[] = [];
    let links = 0;
    const openMark = (opener: string, closer: string) => {
      run.html += opener;
      open.push({ opener, closer, at: run.html.length });
    };
    const closeMark = () => {
      const mark = open.pop();
      if (!mark) return;
      if (run.html.length === mark.at) run.html = run.html.slice(0, mark.at - mark.opener.length);
      else run.html += mark.closer;
    };
    const write = (text: string) => {
      run.html += escapeHtml(text);
      run.text += text;
      run.unlinked += links > 0 ? ' ' : text;
    };
    for (const token of tokens) {
      switch (token.type) {
        case 'text':
          write(token.content);
          break;
        case 'code_inline':
          this.change('code', token.content);
          write(token.content);
          break;
        case 'image':
          this.change('image', token.content || String(token.attrGet('src') ?? ''));
          write(token.content);
          break;
        case 'softbreak':
          run.html += ' ';
          run.text += ' ';
          run.unlinked += ' ';
          break;
        case 'hardbreak':
          this.change('line-break', '');
          run.html += ' ';
          run.text += '\n';
          run.unlinked += '\n';
          break;
        case 'strong_open':
          openMark('<strong>', '</strong>');
          break;
        case 'em_open':
          openMark('<em>', '</em>');
          break;
        case 'link_open': {
          const href = String(token.attrGet('href') ?? '');
          this.links.push(href);
          links += 1;
          if (isSafeLink(href) && this.allowLink(href)) openMark(`<a href="${escapeHtml(href)}">`, '</a>');
          else {
            this.change('link', href);
            openMark('', '');
          }
          break;
        }
        case 'link_close':
          links -= 1;
          closeMark();
          break;
        case 'strong_close':
        case 'em_close':
          closeMark();
          break;
        case 'html_inline':
          if (!token.content.startsWith('</')) this.change('html', firstTag(token.content));
          break;
        default:
          break;
      }
    }
    return run;
  }

  /** A heading is a paragraph, in bold unless it has marks of its own (which it keeps). */
  private paragraph(tokens: Token[]): void {
    const run = this.inline(tokens);
    const bold =
      this.inHeading && !tokens.some((token) => token.type === 'strong_open' || token.type === 'em_open');
    if (this.inHeading) this.change('heading', run.text);
    this.block(bold ? `<strong>${run.html}</strong>` : run.html, run.text, run.unlinked);
    this.text += run.text;
  }

  /** Text shown as it is, a paragraph (or a piece of a list item) per blank-line-separated part. */
  private plain(paragraphs: string[]): void {
    for (const paragraph of paragraphs) {
      const shown = paragraph.replace(/\s+/g, ' ').trim();
      this.block(escapeHtml(shown), shown);
    }
  }

  private openList(ordered: boolean): void {
    this.depth += 1;
    if (this.depth === 1) {
      this.list = { ordered, items: [] };
      return;
    }
    this.endItem();
    this.nestedPending = true;
  }

  private closeList(): void {
    this.depth -= 1;
    if (this.depth > 0 || !this.list) return;
    this.endItem();
    const { ordered, items } = this.list;
    this.list = undefined;
    if (items.length > 0) this.html += ordered ? `<ol>${items.join('')}</ol>` : `<ul>${items.join('')}</ul>`;
  }

  read(token: Token): void {
    switch (token.type) {
      case 'inline':
        this.paragraph(token.children ?? []);
        break;
      case 'heading_open':
      case 'heading_close':
        this.inHeading = token.nesting === 1;
        break;
      case 'code_block':
      case 'fence':
        this.change('code', token.content);
        this.plain([token.content]);
        this.text += `${token.content.trim()}\n`;
        break;
      case 'html_block': {
        const paragraphs = htmlBlockText(token.content);
        for (const [, name] of token.content.matchAll(SCRIPT_OR_STYLE)) this.change('script', `<${name}>`);
        const tag = firstTag(token.content.replace(SCRIPT_OR_STYLE, ''));
        if (tag) this.change('html', tag);
        this.plain(paragraphs);
        for (const paragraph of paragraphs) this.text += `${paragraph}\n`;
        break;
      }
      case 'blockquote_open':
        this.change('quote', '');
        break;
      case 'hr':
        this.change('rule', '');
        break;
      case 'bullet_list_open':
      case 'ordered_list_open':
        this.openList(token.type === 'ordered_list_open');
        break;
      case 'bullet_list_close':
      case 'ordered_list_close':
        this.closeList();
        break;
      case 'list_item_open':
      case 'list_item_close':
        this.endItem();
        break;
      default:
        break;
    }
    if (token.block && token.nesting === -1) this.text += '\n';
  }
}

/**
 * `source` (markdown, plain text or HTML, whatever its writer meant) as page copy: its HTML, what a
 * reader sees of it, every link address written, and what the page shows otherwise than written.
 * A link stays a link only to a safe address that `allowLink` allows; the others show as their text.
 */
export function renderMarkdown(source: string, allowLink: LinkPolicy = () => true): RenderedMarkdown {
  const rendering = new Rendering(allowLink);
  for (const token of parseMarkdown(source)) rendering.read(token);
  return {
    html: rendering.html,
    text: rendering.text.replace(/\n{2,}/g, '\n').trim(),
    links: rendering.links,
    changes: rendering.changes,
  };
}
