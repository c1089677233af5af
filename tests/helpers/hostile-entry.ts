/**
 * A topic entry that uses everything a writer may type and page copy does not have (decisions §7,
 * "One rendering"): raw HTML (a script too), a heading, nested lists, allowed and disallowed links,
 * an image, code, a quote, a rule, a line break, marks that pair with nothing and a bare address. The
 * entry preview, the version preview and the served page must all show it alike.
 */
export const HOSTILE_ENTRY = [
  '# Results that speak',
  '',
  'Grocers cut empty shelves by **nineteen percent** with <b>shelf alerts</b>.',
  '<script>alert("entry")</script>',
  '',
  '<div class="promo" onclick="steal()">',
  'Call us <em>today</em> &amp; save.',
  '</div>',
  '',
  '- Stores',
  '  - Ohio',
  '  - Texas',
  '    1. Dallas',
  '- Warehouses',
  '',
  'Book the [demo](https://example.com/demo), not [this](javascript:alert(1)) or [that](data:text/html,hi).',
  '![Globex logo](https://cdn.example/logo.png) and `npm install` _every_ week.',
  '',
  '    indented <i>code</i>',
  '',
  '> A quote with **bold**.',
  '',
  '---',
  'Line one  ',
  'line two, see www.example.org for **more.',
].join('\n');
