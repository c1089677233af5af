/**
 * URLs a client may try to store, for the scheme rules of decisions.md §10: links that would run
 * script when clicked, in the spellings that slip past a naive check (case, leading whitespace and
 * control characters, a line break that browsers strip), and the safe forms each kind of field takes.
 */
export const SCRIPT_URLS = [
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  '\tjavascript:alert(1)',
  ' javascript:alert(1)',
  '\u0001javascript:alert(1)',
  'java\nscript:alert(1)',
  'vbscript:msgbox(1)',
];

/**
 * "Paths" that browsers read as another site: protocol-relative URLs, the backslash read as a
 * slash, and a tab that browsers strip (issue 36).
 */
export const OFF_SITE_PATHS = [
  '//evil.example/x',
  '/\\evil.example/x',
  '\\\\evil.example/x',
  '/\t/evil.example/x',
  '//',
];

/** What a link on a page may be (actions, footer links, images, metadata): never script. */
export const PAGE_LINKS = [
  'https://acme.example/demo?utm=x#top',
  'http://acme.example',
  'mailto:sales@acme.example',
  'tel:+14155550100',
  '/pricing',
  '/',
  '/docs//guide',
  '#contact',
];

/** Absolute http(s) URLs: all that a person's profile or a brand's website may be. */
export const ABSOLUTE_URLS = ['https://www.linkedin.com/in/ada-lovelace', 'http://acme.example/about?x=1#y'];

/** Page links that are not absolute http(s) URLs, refused where only those are taken. */
export const NOT_ABSOLUTE = [
  'mailto:ada@acme.example',
  '/in/ada',
  '#top',
  'www.linkedin.com/in/ada',
  '//acme.example',
];
