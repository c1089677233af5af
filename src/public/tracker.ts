import { createHash } from 'node:crypto';

/**
 * The tracking script of public pages, served as is (no build step, no framework). The page loads
 * it with `data-tailor-token` (the signed page token) and `data-tailor-scope` (the audience, so
 * that one tab keeps one session per audience across reloads and never reuses a session id on
 * another audience's page, which the event endpoint refuses).
 *
 * It reports the session to /v0/public/events in batches of at most 50 events, flushed every 5 s,
 * when the page is hidden and on pagehide, with sendBeacon (fetch with keepalive as the fallback);
 * the body is a JSON string, which sendBeacon sends as text/plain. It also submits the page's
 * action form to /v0/public/forms. Interactions and scroll depth are reported at most once a
 * second; `time` carries the visible time since the previous `time` event.
 */
export const TRACKER_SCRIPT = `(() => {
  'use strict';
  const script = document.currentScript;
  const token = script && script.getAttribute('data-tailor-token');
  if (!token) return;
  const endpoint = (path) => new URL(path, script.src).href;
  const EVENTS_URL = endpoint('/v0/public/events');
  const FORMS_URL = endpoint('/v0/public/forms');
  const FLUSH_MS = 5000;
  const THROTTLE_MS = 1000;
  const BATCH = 50;
  const MAX_TIME_MS = 3600000;
  const SESSION_ID = /^[A-Za-z0-9-]{8,64}$/;

  const uuid = () => {
    if (crypto.randomUUID) return crypto.randomUUID();
    // randomUUID needs a secure context; plain-http deployments get a version 4 UUID made by hand.
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 15) | 64;
    bytes[8] = (bytes[8] & 63) | 128;
    const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
    return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-');
  };

  const sessionId = (() => {
    const key = 'tailor.session.' + (script.getAttribute('data-tailor-scope') || location.pathname);
    try {
      let id = sessionStorage.getItem(key);
      if (!id || !SESSION_ID.test(id)) {
        id = uuid();
        sessionStorage.setItem(key, id);
      }
      return id;
    } catch (error) {
      return uuid(); // storage is blocked: a session for this load only
    }
  })();

  let queue = [];
  const record = (type, fields) => queue.push(Object.assign({ type, at: Date.now() }, fields));

  let visibleMs = 0;
  let visibleSince = document.visibilityState === 'visible' ? performance.now() : null;
  const takeVisibleTime = () => {
    const now = performance.now();
    const ms = visibleMs + (visibleSince === null ? 0 : now - visibleSince);
    visibleMs = 0;
    if (visibleSince !== null) visibleSince = now;
    return Math.min(Math.round(ms), MAX_TIME_MS);
  };

  const send = (body) => {
    try {
      if (navigator.sendBeacon && navigator.sendBeacon(EVENTS_URL, body)) return;
    } catch (error) {
      // fall through to fetch
    }
    fetch(EVENTS_URL, { method: 'POST', body, keepalive: true }).catch(() => {});
  };

  const flush = () => {
    const ms = takeVisibleTime();
    if (ms > 0) record('time', { ms });
    while (queue.length > 0) {
      const events = queue.slice(0, BATCH);
      queue = queue.slice(BATCH);
      send(JSON.stringify({ token, sessionId, events }));
    }
  };

  let lastInteraction = 0;
  const interaction = () => {
    const now = Date.now();
    if (now - lastInteraction < THROTTLE_MS) return;
    lastInteraction = now;
    record('interaction');
  };

  let deepest = -1;
  let lastScroll = 0;
  let scrollTimer = 0;
  const depthNow = () => {
    const total = Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0);
    if (total <= 0) return 100;
    return Math.min(100, Math.max(0, Math.round(((window.scrollY + window.innerHeight) / total) * 100)));
  };
  const measureScroll = () => {
    scrollTimer = 0;
    const depth = depthNow();
    if (depth <= deepest) return;
    const wait = lastScroll + THROTTLE_MS - Date.now();
    if (wait > 0) {
      scrollTimer = setTimeout(measureScroll, wait); // report the depth reached once the second is over
      return;
    }
    deepest = depth;
    lastScroll = Date.now();
    record('scroll', { depth });
  };

  // Capture phase: a page script that stops propagation does not hide the visitor's actions.
  document.addEventListener('click', (event) => {
    interaction();
    const target = event.target instanceof Element ? event.target.closest('[data-action-id]') : null;
    const actionId = target && target.getAttribute('data-action-id');
    if (actionId) record('cta_click', { actionId: actionId.slice(0, 64) });
  }, true);
  document.addEventListener('keydown', interaction, true);
  document.addEventListener('focusin', (event) => {
    if (event.target instanceof Element && event.target.matches('input, textarea, select')) interaction();
  }, true);
  window.addEventListener('scroll', () => {
    if (!scrollTimer) measureScroll();
  }, { passive: true });
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') {
      if (visibleSince !== null) visibleMs += performance.now() - visibleSince;
      visibleSince = null;
      flush();
    } else if (visibleSince === null) {
      visibleSince = performance.now();
    }
  });
  window.addEventListener('pagehide', flush);
  setInterval(flush, FLUSH_MS);

  const form = document.querySelector('form[data-tailor-form]');
  if (form) {
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const submit = form.querySelector('[type=submit]');
      const failed = form.querySelector('[data-tailor-form-error]');
      const thanks = document.querySelector('[data-tailor-form-thanks]');
      const fields = {};
      let email = '';
      for (const [name, value] of new FormData(form)) {
        if (typeof value !== 'string' || !value.trim()) continue;
        if (name === 'email') email = value.trim();
        else fields[name] = value.trim();
      }
      if (submit) submit.disabled = true;
      if (failed) failed.hidden = true;
      flush(); // the session should be known before the submission that counts toward it
      try {
        const response = await fetch(FORMS_URL, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ token, sessionId, email, fields }),
        });
        if (!response.ok) throw new Error('The form was not accepted: ' + response.status);
        form.hidden = true;
        if (thanks) {
          thanks.hidden = false;
          thanks.focus();
        }
      } catch (error) {
        if (failed) failed.hidden = false;
        if (submit) submit.disabled = false;
      }
    });
  }

  record('session_start');
  measureScroll();
})();
`;

/** Changes whenever the script does: the page asks for this version, so caches never serve an old one. */
export const TRACKER_VERSION = createHash('sha256').update(TRACKER_SCRIPT).digest('hex').slice(0, 16);
