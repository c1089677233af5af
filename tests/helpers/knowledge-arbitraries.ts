import fc from 'fast-check';

/**
 * What a marketer may put in a topic entry, whatever its `content.type` says: markdown of every
 * kind (well and badly formed), HTML, bare and linked URLs, sentences like the notes about a person,
 * emoji, and very long text. Generation must show what it can of any of it and never stick.
 */

const WORDS = [
  'stock',
  'pilot',
  'stores',
  'forecast',
  'margin',
  'nineteen',
  'percent',
  'holiday',
  'Midwest',
  'shelves',
  'weekly',
  'team',
  'Ohio',
  'Friday',
];

const word = fc.constantFrom(...WORDS);
const words = fc.array(word, { minLength: 1, maxLength: 8 }).map((list) => list.join(' '));
const sentence = words.map((text) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`);
const url = fc.constantFrom(
  'https://elsewhere.example/path?q=1',
  'http://www.example.com',
  'www.example.org/a_b',
  'https://acme.example/tour',
  'mailto:ann@example.com',
);

/** One piece of inline or block markup, around generated words. */
const piece: fc.Arbitrary<string> = fc.oneof(
  words,
  sentence,
  words.map((text) => `**${text}**`),
  words.map((text) => `*${text}*`),
  words.map((text) => `_${text}_`),
  words.map((text) => `__${text}__`),
  words.map((text) => `***${text}***`),
  words.map((text) => `**${text}`),
  words.map((text) => `${text} ** ${text}`),
  words.map((text) => `\`${text}\``),
  fc.tuple(words, url).map(([text, href]) => `[${text}](${href})`),
  fc.tuple(words, url).map(([text, href]) => `![${text}](${href})`),
  fc.tuple(words, url).map(([text, href]) => `[${text}](${href} "title")`),
  url,
  url.map((href) => `<${href}>`),
  words.map((text) => `<b>${text}</b>`),
  words.map((text) => `<a href="https://elsewhere.example">${text}</a>`),
  words.map((text) => `<script>alert("${text}")</script>`),
  fc.constantFrom(
    '](',
    '[',
    ']',
    '#',
    '\\',
    '<',
    '>',
    '&amp;',
    '&',
    '|',
    '~~',
    '1.',
    '- ',
    '* ',
    '+ ',
    '***',
  ),
  fc.constantFrom('🚀', '✅ done', '👩🏽‍💻', 'naïve café', '日本語のテキスト', 'مرحبا'),
);

const line = fc.array(piece, { minLength: 1, maxLength: 6 }).map((pieces) => pieces.join(' '));

/** A block: a paragraph, or a line made a heading, a quote, a list, code or HTML. */
const block: fc.Arbitrary<string> = fc.oneof(
  line,
  line.map((text) => `# ${text}`),
  line.map((text) => `### ${text}`),
  line.map((text) => `> ${text}`),
  fc.array(line, { minLength: 1, maxLength: 4 }).map((lines) => lines.map((text) => `- ${text}`).join('\n')),
  fc
    .array(line, { minLength: 1, maxLength: 4 })
    .map((lines) => lines.map((text, n) => `${n + 1}. ${text}`).join('\n')),
  fc.tuple(line, line).map(([outer, inner]) => `- ${outer}\n  - ${inner}\n- ${outer}`),
  line.map((text) => `\`\`\`\n${text}\n\`\`\``),
  line.map((text) => `    ${text}`),
  line.map((text) => `<div><p>${text}</p></div>`),
  line.map((text) => `${text}\n===`),
  fc.constant('---'),
);

/** A sentence like a note about a person, which may also be written in the knowledge. */
export const noteLike = fc
  .tuple(fc.constantFrom('Call with Jane:', 'She said', 'Met at the fair;', 'Budget:'), words, sentence)
  .map((parts) => parts.join(' '));

/** The text of a topic entry. */
export const entryText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.array(block, { minLength: 1, maxLength: 4 }).map((blocks) => blocks.join('\n\n')),
  },
  { weight: 2, arbitrary: noteLike },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 200, unit: 'binary' }) },
  { weight: 1, arbitrary: sentence.map((text) => `${text} `.repeat(400).trim().slice(0, 10_000)) },
);

/** A topic entry's content, of either type: the type does not change how it is read. */
export const entryContent = fc.record({ type: fc.constantFrom('text', 'markdown'), content: entryText });
