import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type MarkdownChangeKind, renderMarkdown } from '../../src/shared/markdown-html.ts';
import { HOSTILE_ENTRY } from '../helpers/hostile-entry.ts';
import { entryText } from '../helpers/knowledge-arbitraries.ts';

/** The rules of the one rendering of page copy (decisions §7): what it keeps, what it changes, what it says. */

const html = (source: string, allowLink?: (href: string) => boolean) =>
  renderMarkdown(source, allowLink).html;
const kinds = (source: string) => renderMarkdown(source).changes.map((change) => change.kind);

describe('the subset', () => {
  it('keeps paragraphs, bold, italic, lists and links as they are, and reports no change', () => {
    const source =
      'We are **SOC 2** audited, *every year*.\n\n- SSO\n- [Our trust page](https://trust.example/)\n\n1. one\n2. two';
    expect(renderMarkdown(source)).toEqual({
      html: '<p>We are <strong>SOC 2</strong> audited, <em>every year</em>.</p><ul><li>SSO</li><li><a href="https://trust.example/">Our trust page</a></li></ul><ol><li>one</li><li>two</li></ol>',
      text: 'We are SOC 2 audited, every year.\nSSO\nOur trust page\none\ntwo',
      links: ['https://trust.example/'],
      changes: [],
    });
  });

  it('escapes every text, so that nothing typed becomes markup', () => {
    expect(html('5 < 6 & "quotes" \'too\' \\<b>')).toBe(
      '<p>5 &lt; 6 &amp; &quot;quotes&quot; &#39;too&#39; &lt;b&gt;</p>',
    );
    expect(html('[x](https://a.example/?q="><script>)')).toBe(
      '<p><a href="https://a.example/?q=%22%3E%3Cscript%3E">x</a></p>',
    );
  });

  it('joins the lines of a paragraph and the paragraphs of a list item with a space', () => {
    expect(html('one\ntwo')).toBe('<p>one two</p>');
    expect(html('- first\n\n  second\n- third')).toBe('<ul><li>first second</li><li>third</li></ul>');
  });

  it('leaves out what shows nothing: empty marks and links, an image without alt text, an empty item', () => {
    expect(html('Before [](https://x.example) after, ****.')).toBe('<p>Before  after, ****.</p>');
    expect(html('![](logo.png)\n\n- \n- kept')).toBe('<ul><li>kept</li></ul>');
  });
});

describe('what the page shows otherwise than written', () => {
  it.each<[string, string, string, MarkdownChangeKind[]]>([
    ['a heading, as a bold paragraph', '## Plans', '<p><strong>Plans</strong></p>', ['heading']],
    [
      'a heading with marks of its own, as a paragraph with them',
      '# Plans for *you*',
      '<p>Plans for <em>you</em></p>',
      ['heading'],
    ],
    ['an image, as its alt text', '![Acme logo](https://cdn.example/a.png)', '<p>Acme logo</p>', ['image']],
    ['inline code, as its text', 'Run `npm i` now', '<p>Run npm i now</p>', ['code']],
    [
      'a code block, as a paragraph of its text',
      '```\nnpm i\n  --save\n```',
      '<p>npm i --save</p>',
      ['code'],
    ],
    ['a quote, as its paragraphs', '> Quoted **well**.', '<p>Quoted <strong>well</strong>.</p>', ['quote']],
    ['a rule, not at all', 'Above\n\n---\n\nBelow', '<p>Above</p><p>Below</p>', ['rule']],
    ['a line break, as a space', 'Line one  \nline two', '<p>Line one line two</p>', ['line-break']],
    ['inline HTML, without its tags', 'Call <b>today</b>.', '<p>Call today.</p>', ['html']],
    [
      'an HTML block, as its text without tags, attributes or entities',
      '<div onclick="steal()">\nCall us <em>today</em> &amp; save.\n</div>',
      '<p>Call us today &amp; save.</p>',
      ['html'],
    ],
    ['a script block, not at all', '<script>\nalert(1)\n</script>', '', ['script']],
    ['a style block, not at all', '<style>p { color: red }</style>', '', ['script']],
    ['an HTML comment, not at all', '<!-- a note -->', '', []],
    [
      'a nested list, its items in the outer list',
      '- Stores\n  - Ohio\n    1. Dayton\n  - Texas\n- Warehouses',
      '<ul><li>Stores</li><li>Ohio</li><li>Dayton</li><li>Texas</li><li>Warehouses</li></ul>',
      ['nested-list', 'nested-list'],
    ],
    [
      'text after a nested list, as an item of its own',
      '1. Stores\n   - Ohio\n\n   and more\n2. Warehouses',
      '<ol><li>Stores</li><li>Ohio</li><li>and more</li><li>Warehouses</li></ol>',
      ['nested-list'],
    ],
    [
      'a link to a script, data or a relative address, as its text',
      '[a](javascript:alert(1)) [b](data:text/html,x) [c](page.html) [d](vbscript:x)',
      '<p>a b c d</p>',
      ['link', 'link', 'link', 'link'],
    ],
    ['marks that pair with nothing, as written', 'Save **big today.', '<p>Save **big today.</p>', ['marks']],
    [
      'an address that is not a link, as text',
      'See www.acme.example.',
      '<p>See www.acme.example.</p>',
      ['address'],
    ],
  ])('shows %s, and says so', (_label, source, expected, changes) => {
    expect(html(source)).toBe(expected);
    expect(kinds(source)).toEqual(changes);
  });

  it('keeps links to safe addresses that the caller allows; the others show as their text', () => {
    const source =
      '[demo](https://example.com/demo), [mail](mailto:a@example.com), [top](#top), [blog](https://blog.example)';
    expect(html(source)).toBe(
      '<p><a href="https://example.com/demo">demo</a>, <a href="mailto:a@example.com">mail</a>, <a href="#top">top</a>, <a href="https://blog.example">blog</a></p>',
    );
    const onlyDemo = renderMarkdown(source, (href) => href === 'https://example.com/demo');
    expect(onlyDemo.html).toBe('<p><a href="https://example.com/demo">demo</a>, mail, top, blog</p>');
    expect(onlyDemo.changes.map((change) => change.text)).toEqual([
      'mailto:a@example.com',
      '#top',
      'https://blog.example',
    ]);
    expect(onlyDemo.links).toHaveLength(4);
  });

  it('names what changed: the heading, the tag, the address, the first item of a nested list', () => {
    expect(renderMarkdown(HOSTILE_ENTRY).changes).toEqual([
      { kind: 'heading', text: 'Results that speak' },
      { kind: 'html', text: '<b>' },
      { kind: 'script', text: '<script>' },
      { kind: 'html', text: '<div>' },
      { kind: 'nested-list', text: 'Ohio' },
      { kind: 'nested-list', text: 'Dallas' },
      { kind: 'link', text: 'javascript:alert(1)' },
      { kind: 'link', text: 'data:text/html,hi' },
      { kind: 'image', text: 'Globex logo' },
      { kind: 'code', text: 'npm install' },
      { kind: 'code', text: 'indented <i>code</i>' },
      { kind: 'quote', text: '' },
      { kind: 'rule', text: '' },
      { kind: 'line-break', text: '' },
      { kind: 'marks', text: '**more.' },
      { kind: 'address', text: 'www.example.org' },
    ]);
  });

  it('renders the hostile entry as the preview and the page show it', () => {
    expect(renderMarkdown(HOSTILE_ENTRY).html).toBe(
      [
        '<p><strong>Results that speak</strong></p>',
        '<p>Grocers cut empty shelves by <strong>nineteen percent</strong> with shelf alerts.</p>',
        '<p>Call us today &amp; save.</p>',
        '<ul><li>Stores</li><li>Ohio</li><li>Texas</li><li>Dallas</li><li>Warehouses</li></ul>',
        '<p>Book the <a href="https://example.com/demo">demo</a>, not this or that. Globex logo and npm install <em>every</em> week.</p>',
        '<p>indented &lt;i&gt;code&lt;/i&gt;</p>',
        '<p>A quote with <strong>bold</strong>.</p>',
        '<p>Line one line two, see www.example.org for **more.</p>',
      ].join(''),
    );
  });
});

describe('whatever is written', () => {
  /** The elements and attributes page copy may have, and nothing else. */
  const TAG = /<(\/?)([a-z]+)((?: [a-z]+="[^"]*")*)>/g;
  const ALLOWED = new Set(['p', 'ul', 'ol', 'li', 'strong', 'em', 'a']);

  it('makes only paragraphs, lists, bold, italic and links to safe addresses, with escaped text between', () => {
    fc.assert(
      fc.property(entryText, (source) => {
        const out = html(source);
        for (const [, , name, attributes] of out.matchAll(TAG)) {
          expect(ALLOWED.has(name as string), name).toBe(true);
          if (name === 'a' && attributes) expect(attributes).toMatch(/^ href="(https?:|mailto:|tel:|\/|#)/);
          else expect(attributes).toBe('');
        }
        // Between the tags there is only text, escaped: no < or > of the writer's.
        expect(out.replace(TAG, '')).not.toMatch(/[<>]/);
      }),
      { seed: 35, numRuns: 400 },
    );
  });
});
