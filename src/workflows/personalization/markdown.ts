import type { Token } from 'markdown-it';
import { htmlBlockText, type LinkPolicy, parseMarkdown, renderMarkdown } from '../../shared/markdown-html.ts';

/**
 * Page copy as the personalizer writes and checks it. How copy is shown (the safe subset: paragraphs,
 * lists, bold, italic and links) is src/shared/markdown-html.ts, the one rendering of the preview and
 * the page; here is what writing copy needs of it: the text a reader sees, and any text turned into
 * copy of that subset, sentence by sentence.
 */

export type { LinkPolicy };

/** The HTML of page copy in the safe subset; links that `allowLink` refuses show as text. */
export function markdownHtml(source: string, allowLink: LinkPolicy): string {
  return renderMarkdown(source, allowLink).html;
}

/** The text a reader sees of page copy: no markers, a line per block. */
export function markdownText(source: string): string {
  return renderMarkdown(source, () => false).text;
}

/** What a reader sees of page copy and every link target written in it, read at once. */
export function markdownShown(source: string): { text: string; links: string[] } {
  const { text, links } = renderMarkdown(source, () => false);
  return { text, links };
}

/** Plain text as markdown that reads back as exactly that text. */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/([\\`*_[\]<>#!|~&])/g, '\\$1')
    .replace(/^(\s*)(\d+)([.)])/gm, '$1$2\\$3')
    .replace(/^(\s*)([-+=])/gm, '$1\\$2');
}

/** Where one sentence ends and the next begins. */
export const SENTENCE_BREAK = /(?<=[.!?;:…])\s+/;
const ENDS_SENTENCE = /[.!?;:…]$/;

/** Decides whether a piece of copy (markdown) may be shown. */
export type Accepts = (markdown: string) => boolean;

/** A mark open around the sentence being written: what opens it again and what closes it. */
interface OpenMark {
  opener: string;
  closer: string;
  /** Where its content starts in the sentence, so that a mark around nothing is left out. */
  start: number;
}

/**
 * An inline run (a paragraph's, a list item's) as sentences of the safe subset, each with its marks
 * balanced, so that any of them may be left out without unbalancing the others.
 */
class SentenceWriter {
  readonly sentences: string[] = [];
  private current = '';
  private readonly open: OpenMark[] = [];

  write(markdown: string): void {
    this.current += markdown;
  }

  /** Plain text, escaped, with a sentence break wherever the text ends a sentence. */
  text(text: string): void {
    text.split(SENTENCE_BREAK).forEach((piece, index) => {
      if (index > 0) this.breakSentence();
      this.write(escapeMarkdown(piece));
    });
  }

  /** A line break: a sentence break after a sentence's end, else a space. */
  lineBreak(): void {
    if (ENDS_SENTENCE.test(this.current)) this.breakSentence();
    else this.write(' ');
  }

  openMark(opener: string, closer: string): void {
    this.write(opener);
    this.open.push({ opener, closer, start: this.current.length });
  }

  closeMark(): void {
    const mark = this.open.pop();
    if (!mark) return;
    if (mark.start === this.current.length) {
      this.current = this.current.slice(0, this.current.length - mark.opener.length);
    } else this.write(mark.closer);
  }

  breakSentence(): void {
    const open = [...this.open];
    while (this.open.length > 0) this.closeMark();
    this.sentences.push(this.current.trim());
    this.current = '';
    for (const mark of open) this.openMark(mark.opener, mark.closer);
  }

  finish(): string[] {
    this.breakSentence();
    return this.sentences.filter((sentence) => markdownText(sentence) !== '');
  }
}

function linkDestination(href: string): string {
  return /[\s()<>]/.test(href) ? `<${href.replace(/[<>]/g, encodeURIComponent)}>` : href;
}

/** An inline run's sentences; a heading's (`bold`) in bold when it has no marks of its own. */
function inlineSentences(tokens: Token[], allowLink: LinkPolicy, bold: boolean): string[] {
  const writer = new SentenceWriter();
  const wrapped = bold && !tokens.some((token) => token.type === 'strong_open' || token.type === 'em_open');
  if (wrapped) writer.openMark('**', '**');
  for (const token of tokens) {
    switch (token.type) {
      case 'text':
      case 'code_inline':
      case 'image':
        writer.text(token.content);
        break;
      case 'softbreak':
      case 'hardbreak':
        writer.lineBreak();
        break;
      case 'strong_open':
        writer.openMark('**', '**');
        break;
      case 'em_open':
        writer.openMark('*', '*');
        break;
      case 'link_open': {
        const href = String(token.attrGet('href') ?? '');
        if (allowLink(href)) writer.openMark('[', `](${linkDestination(href)})`);
        else writer.openMark('', '');
        break;
      }
      case 'strong_close':
      case 'em_close':
      case 'link_close':
        writer.closeMark();
        break;
      default:
        // html_inline: the tag is not shown, the text around it is.
        break;
    }
  }
  if (wrapped) writer.closeMark();
  return writer.finish();
}

function plainSentences(text: string): string[] {
  const writer = new SentenceWriter();
  writer.text(text.replace(/\s+/g, ' ').trim());
  return writer.finish();
}

/** The sentences `accepts` allows, as one block; empty when none is, or when they are not together. */
function acceptedBlock(sentences: string[], accepts: Accepts): string {
  const block = sentences.filter(accepts).join(' ');
  return block && accepts(block) ? block : '';
}

/**
 * Any text a writer may have given (markdown, plain text, HTML) as markdown of the safe subset:
 * paragraphs, lists (nested ones flattened), bold, italic, and the links `allowLink` keeps (the
 * others show as their text). A heading becomes a bold paragraph; a quote, code or an HTML block
 * its text. A sentence that `accepts` refuses is left out, and so is a block it refuses as a whole:
 * what is left reads as written and shows no markup.
 */
export function safeMarkdown(source: string, allowLink: LinkPolicy, accepts: Accepts = () => true): string {
  const blocks: string[] = [];
  /** The lists being read, innermost first; nested lists are flattened into the outermost. */
  const lists: { ordered: boolean; items: string[]; item: string[] }[] = [];
  let inHeading = false;
  const paragraph = (sentences: string[]) => {
    const block = acceptedBlock(sentences, accepts);
    if (block) (lists[0]?.item ?? blocks).push(block);
  };
  const endItem = () => {
    const list = lists[0];
    if (list && list.item.length > 0) list.items.push(list.item.join(' '));
    if (list) list.item = [];
  };
  for (const token of parseMarkdown(source)) {
    switch (token.type) {
      case 'inline':
        paragraph(inlineSentences(token.children ?? [], allowLink, inHeading));
        break;
      case 'heading_open':
      case 'heading_close':
        inHeading = token.nesting === 1;
        break;
      case 'code_block':
      case 'fence':
        paragraph(plainSentences(token.content));
        break;
      case 'html_block':
        for (const text of htmlBlockText(token.content)) paragraph(plainSentences(text));
        break;
      case 'bullet_list_open':
      case 'ordered_list_open':
        endItem();
        lists.unshift({ ordered: token.type === 'ordered_list_open', items: [], item: [] });
        break;
      case 'list_item_open':
      case 'list_item_close':
        endItem();
        break;
      case 'bullet_list_close':
      case 'ordered_list_close': {
        const done = lists.shift();
        if (!done) break;
        if (lists[0]) lists[0].items.push(...done.items);
        else if (done.items.length > 0)
          blocks.push(done.items.map((item, n) => `${done.ordered ? `${n + 1}.` : '-'} ${item}`).join('\n'));
        break;
      }
      default:
        break;
    }
  }
  return blocks.join('\n\n');
}

/** What a reader sees of a writer's text (markdown, plain text or HTML), links as their text. */
export function shownText(source: string): string {
  return markdownText(safeMarkdown(source, () => false));
}
