import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import MarkdownIt, { type MarkdownIt as Parser, type Token } from 'markdown-it';
import { AppError } from '../shared/errors.ts';
import { escapeHtml } from '../shared/html.ts';

/**
 * The repository's own guides (docs/*.md), read-only, as HTML on the API origin: the console links
 * to them (its note on drafts written without a model names the worked example of connecting one),
 * and a self-hosted install serves its own docs, those of its version, with no other site to reach.
 * They are the install's files, never a tenant's, so they may share the console's origin; still, no
 * script runs in them and nothing but a docs file by its name is served (docs/console.md#guides).
 */

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
/** A guide is named by its file's name without `.md`: nothing else reaches the file system. */
const GUIDE_FILE = /^([a-z0-9][a-z0-9-]*)\.md$/;

const STYLE = `
body{margin:0;font:16px/1.6 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328;background:#fff}
nav,main{max-width:52rem;margin:0 auto;padding:0 1rem}
nav{padding-top:1rem;font-size:.9rem}
main{padding-bottom:4rem;overflow-wrap:break-word}
a{color:#0a58ca}
h1,h2,h3,h4{line-height:1.25;margin:2rem 0 .75rem}
code,pre{font:.875em/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f3f4f6;border-radius:4px}
code{padding:.1em .3em}
pre{padding:.75rem 1rem;overflow-x:auto}
pre code{padding:0;background:none}
table{border-collapse:collapse;display:block;overflow-x:auto;margin:1rem 0}
th,td{border:1px solid #d0d7de;padding:.4rem .6rem;text-align:left;vertical-align:top}
blockquote{margin:1rem 0;padding:0 1rem;border-left:4px solid #d0d7de;color:#57606a}
`;
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** No script at all, no other origin, no frame: a guide is text and its own style. */
const POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${STYLE_HASH}'`,
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** A heading's anchor as GitHub makes it, so that links between the docs work here as they do there. */
function anchorOf(text: string, taken: Map<string, number>): string {
  const base = text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
  const repeats = taken.get(base) ?? 0;
  taken.set(base, repeats + 1);
  return repeats === 0 ? base : `${base}-${repeats}`;
}

function textOf(inline: Token | undefined): string {
  return (inline?.children ?? [])
    .filter((child) => child.type === 'text' || child.type === 'code_inline')
    .map((child) => child.content)
    .join('');
}

/**
 * Where a link of a guide goes here: another guide by its address, an anchor or a web address as
 * written; null for a file of the repository that is not a guide (it is shown as its text).
 */
function hrefHere(href: string, guides: ReadonlySet<string>): string | null {
  if (href.startsWith('#') || /^(https?|mailto):/i.test(href)) return href;
  const [file = '', anchor] = href.split('#');
  const name = GUIDE_FILE.exec(file)?.[1];
  if (name === undefined || !guides.has(name)) return null;
  return `/guides/${name}${anchor === undefined ? '' : `#${anchor}`}`;
}

function rewriteLinks(children: Token[], guides: ReadonlySet<string>): void {
  const dropped: boolean[] = [];
  for (const token of children) {
    if (token.type === 'link_open') {
      const href = hrefHere(String(token.attrGet('href') ?? ''), guides);
      dropped.push(href === null);
      if (href === null) {
        token.tag = 'span';
        token.attrs = null;
      } else token.attrSet('href', href);
    } else if (token.type === 'link_close' && dropped.pop()) token.tag = 'span';
  }
}

function parserFor(guides: ReadonlySet<string>): Parser {
  const parser = new MarkdownIt('commonmark', { html: false }).enable('table');
  parser.core.ruler.push('guide_anchors_and_links', (state) => {
    const taken = new Map<string, number>();
    state.tokens.forEach((token, index) => {
      if (token.type === 'heading_open')
        token.attrSet('id', anchorOf(textOf(state.tokens[index + 1]), taken));
      if (token.type === 'inline') rewriteLinks(token.children ?? [], guides);
    });
  });
  return parser;
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Tailor guides</title>
<style>${STYLE}</style>
</head>
<body>
<nav aria-label="Guides"><a href="/guides">Tailor guides</a> · <a href="/console">Console</a></nav>
<main>
${body}</main>
</body>
</html>
`;
}

interface Guide {
  name: string;
  title: string;
  html: string;
}

async function renderGuide(docs: string, name: string, parser: Parser): Promise<Guide> {
  const markdown = await fs.readFile(`${docs}${name}.md`, 'utf8');
  const title = /^# +(.+)$/m.exec(markdown)?.[1]?.trim() ?? name;
  return { name, title, html: page(title, parser.render(markdown)) };
}

function indexOf(guides: Guide[]): string {
  const items = guides
    .map((guide) => `<li><a href="/guides/${guide.name}">${escapeHtml(guide.title)}</a></li>`)
    .join('\n');
  return page('Guides', `<h1>Tailor guides</h1>\n<ul>\n${items}\n</ul>\n`);
}

function send(reply: FastifyReply, html: string): FastifyReply {
  return reply
    .type('text/html; charset=utf-8')
    .header('Content-Security-Policy', POLICY)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('Cache-Control', 'no-cache')
    .send(html);
}

/**
 * GET /guides (their list) and GET /guides/{name} (one, `docs/{name}.md`). The docs are the
 * install's and do not change while it runs: their names are read at start, each guide rendered
 * once, when it is first asked for. Hidden from the OpenAPI document, as the console is.
 */
export async function guideRoutes(
  app: FastifyInstance,
  { docs = DOCS }: { /** The docs folder, with a trailing slash. */ docs?: string } = {},
): Promise<void> {
  const names = (await fs.readdir(docs))
    .map((file) => GUIDE_FILE.exec(file)?.[1])
    .filter((name): name is string => name !== undefined)
    .sort();
  const parser = parserFor(new Set(names));
  const rendered = new Map<string, Promise<Guide>>();
  const guide = (name: string) => {
    let found = rendered.get(name);
    if (!found) {
      found = renderGuide(docs, name, parser);
      rendered.set(name, found);
    }
    return found;
  };
  app.get('/guides', { schema: { hide: true } }, async (_request, reply) =>
    send(reply, indexOf(await Promise.all(names.map(guide)))),
  );
  app.get<{ Params: { name: string } }>(
    '/guides/:name',
    { schema: { hide: true } },
    async (request, reply) => {
      const { name } = request.params;
      if (!names.includes(name))
        throw new AppError('not_found', 'No guide has that name: /guides lists them');
      return send(reply, (await guide(name)).html);
    },
  );
}
