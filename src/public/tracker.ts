import { createHash } from 'node:crypto';
import { transformSync } from 'esbuild';

/**
 * The tracking script of public pages, as it is read and changed here; pages get it minified
 * (TRACKER_SCRIPT). No build step, no framework. The page loads it, with a relative address, with
 * `data-tailor-token` (the signed page token) and `data-tailor-scope` (the audience, so that one tab
 * keeps one session per audience across reloads and never reuses a session id on another
 * audience's page, which the event endpoint refuses).
 *
 * It reports the session to /v0/public/events in batches of at most 50 events, flushed every 5 s,
 * when the page's visibility changes and on pagehide, with sendBeacon (fetch with keepalive when
 * the beacon is refused); the body is a JSON string, which both send as text/plain. It also submits
 * the page's action form to /v0/public/forms, with fetch, as text/plain too. Interactions and
 * scroll depth are reported at most once a second; `time` carries the visible time since the
 * previous `time` event.
 *
 * Gzipped, what is served must stay within 1,000 bytes (tests/public/downloads.test.ts): the code is
 * terse on purpose and leans on what the page guarantees: render.ts always sets both attributes,
 * and a live form always has its submit button, error and thanks elements. The minifier renames
 * local names only: property names, strings and numbers are sent as written here.
 */
const TRACKER_SOURCE = `(() => {
  const doc = document;
  const { tailorToken: token, tailorScope: scope } = doc.currentScript.dataset;
  // Relative, as the page's address of this script is: both resolve against the page's base URL.
  const EVENTS_URL = '/v0/public/events';
  const on = addEventListener; // on window, in the capture phase where it matters (below)
  const post = (url, fields) =>
    fetch(url, { method: 'POST', body: JSON.stringify({ token, sessionId, ...fields }), keepalive: true });

  // A random version 4 UUID: the one in a blob URL (the File API makes it with the browser's
  // random UUID generator, as crypto.randomUUID does, which plain-http pages lack). The tab's
  // session for this audience goes on when sessionStorage has one; when storage is blocked, each
  // load is a session of its own.
  let sessionId = URL.createObjectURL(new Blob()).slice(-36);
  try {
    const store = sessionStorage;
    const key = 'tailor.session.' + scope;
    if (/^[0-9a-f-]{36}$/.test(store[key])) sessionId = store[key];
    else store[key] = sessionId;
  } catch {}

  const queue = [];
  const record = (type, fields) => queue.push({ type, at: Date.now(), ...fields });

  // Also run on load and on every visibility change: since is when the page last became visible
  // or reported its time (false while hidden), so hidden time never counts.
  let since;
  const flush = () => {
    const now = performance.now();
    const ms = since && Math.min(Math.round(now - since), 3600000);
    since = !doc.hidden && now;
    if (ms) record('time', { ms });
    while (queue.length) {
      const events = queue.splice(0, 50);
      navigator.sendBeacon(EVENTS_URL, JSON.stringify({ token, sessionId, events })) ||
        post(EVENTS_URL, { events }).catch(() => {});
    }
  };

  let lastInteraction = 0;
  const interaction = () => {
    if (Date.now() - lastInteraction < 1000) return;
    lastInteraction = Date.now();
    record('interaction');
  };

  // The deepest part of the page seen: reported at once, then at most once a second (a second
  // after a report, the depth is measured again, and scroll events wait for it).
  let deepest = -1;
  let scrollTimer = 0;
  const measureScroll = () => {
    scrollTimer = 0;
    const depth = Math.min(Math.round(((scrollY + innerHeight) / doc.documentElement.scrollHeight) * 100), 100);
    if (depth > deepest) {
      record('scroll', { depth: (deepest = depth) });
      scrollTimer = setTimeout(measureScroll, 1000);
    }
  };

  // Capture phase on window: a page script that stops propagation does not hide the visitor's actions.
  on(
    'click',
    (event) => {
      interaction();
      const actionId = event.target.closest?.('[data-action-id]')?.dataset.actionId;
      if (actionId) record('cta_click', { actionId: actionId.slice(0, 64) });
    },
    true,
  );
  on('keydown', interaction, true);
  on('focusin', (event) => event.target.matches('input,textarea,select') && interaction(), true);
  on('scroll', () => scrollTimer || measureScroll());
  on('visibilitychange', flush, true);
  on('pagehide', flush);
  setInterval(flush, 5000);

  const form = doc.querySelector('form[data-tailor-form]');
  form?.addEventListener('submit', (event) => {
    event.preventDefault();
    const submit = form.querySelector('[type=submit]');
    const failed = form.querySelector('[data-tailor-form-error]');
    const thanks = doc.querySelector('[data-tailor-form-thanks]');
    const values = {};
    for (let [name, value] of new FormData(form)) {
      if ((value = value.trim?.())) values[name] = value; // files have no trim: left out
    }
    const { email = '', ...fields } = values;
    const fail = () => {
      submit.disabled = failed.hidden = false;
    };
    submit.disabled = failed.hidden = true;
    flush(); // the session should be known before the submission that counts toward it
    post('/v0/public/forms', { email, fields }).then((response) => {
      if (!response.ok) return fail();
      form.hidden = true;
      thanks.hidden = false;
      thanks.focus();
    }, fail);
  });

  flush();
  record('session_start');
  measureScroll();
})();
`;

/**
 * What pages load: TRACKER_SOURCE minified, once, when the module loads. ES2020 is the syntax it
 * may use (optional chaining, object spread): what browsers have run since 2020.
 */
export const TRACKER_SCRIPT = transformSync(TRACKER_SOURCE, { minify: true, target: 'es2020' }).code;

/** Changes whenever the script does: the page asks for this version, so caches never serve an old one. */
export const TRACKER_VERSION = createHash('sha256').update(TRACKER_SCRIPT).digest('hex').slice(0, 16);
