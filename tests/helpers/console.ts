import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

/** The widths the console is checked at: a desktop, and a small phone. */
export const VIEWPORTS = {
  desktop: { width: 1280, height: 900 },
  phone: { width: 375, height: 740 },
} as const;
export type ViewportName = keyof typeof VIEWPORTS;

/** Where screenshots of every view go (TAILOR_SHOTS, if set), to be looked at (not kept in the repository). */
export const SHOTS = process.env.TAILOR_SHOTS ?? '/tmp/console-shots';

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** A browser tab on the console, with what its log said about the Content-Security-Policy. */
export interface ConsoleTab {
  page: Page;
  /** Console messages and page errors that name the Content-Security-Policy: there must be none. */
  cspViolations: string[];
}

export async function openConsole(
  browser: Browser,
  serverUrl: string,
  viewport: ViewportName = 'desktop',
): Promise<ConsoleTab> {
  const page = await browser.newPage({ viewport: VIEWPORTS[viewport] });
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (/content security policy/i.test(message.text())) cspViolations.push(message.text());
  });
  page.on('pageerror', (error) => cspViolations.push(`page error: ${error.message}`));
  await page.goto(`${serverUrl}/console`);
  return { page, cspViolations };
}

/** Signs in with `apiKey` and waits for the console's navigation. */
export async function signIn(page: Page, apiKey: string): Promise<void> {
  await page.getByLabel('API key').fill(apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Console' }).waitFor();
}

/**
 * axe-core's serious and critical violations on the page as it is. axe is evaluated through the
 * DevTools protocol, which the page's CSP does not govern, so the policy under test stays as served.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations: { id: string; impact: string; targets: string[] }[] = await page.evaluate(`
    axe.run(document).then((result) => result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      targets: violation.nodes.map((node) => node.target.join(' ')).slice(0, 3),
    })))`);
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.targets.join(', ')}`);
}

/** Waits until the view has its data: no list loading (aria-busy) and no "Loading…" left on screen. */
export async function settle(page: Page): Promise<void> {
  await expect.poll(() => page.locator('[aria-busy="true"]').count(), { timeout: 10_000 }).toBe(0);
  await expect.poll(() => page.getByText(/^(Loading|Searching).*…$/).count(), { timeout: 10_000 }).toBe(0);
}

/**
 * What every view must hold at every width: no sideways scroll, no serious or critical axe-core
 * violation; and a full-page screenshot named `name` to look at.
 */
export async function checkView(page: Page, name: string, viewport: ViewportName): Promise<void> {
  await settle(page);
  expect(
    await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'),
    `${name} at ${viewport} scrolls sideways`,
  ).toBe(true);
  expect(await seriousViolations(page), `${name} at ${viewport}`).toEqual([]);
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name}-${viewport}.png`, fullPage: true });
}

/** What the name of a control that writes holds: a read-only key must see none. */
const WRITES =
  /publish|archive|restore|create|new|edit|delete|erase|save|add|rename|upload|remove|rotate|send|retry|cancel|generate/i;

/** No button, link or form that writes on the view shown: what a read-only key gets. */
export async function expectNoWriteControl(page: Page, view: string): Promise<void> {
  expect(await page.getByRole('button', { name: WRITES }).count(), view).toBe(0);
  expect(await page.getByRole('link', { name: /new|edit/i }).count(), view).toBe(0);
  expect(await page.locator('form, input[type="file"]').count(), view).toBe(0);
}

/**
 * The words of `names` that the page shows broken across lines although each would fit on a line of
 * the view's content: every word of every occurrence must lie on a single line. (Run in the page: the
 * tests are compiled without the DOM's types.)
 */
export async function brokenWords(page: Page, names: string[]): Promise<string[]> {
  return page.evaluate(`(() => {
    const main = document.querySelector('main');
    const style = getComputedStyle(main);
    const line = main.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const broken = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
      for (const name of ${JSON.stringify(names)}) {
        let offset = text.data.indexOf(name);
        if (offset < 0) continue;
        for (const word of name.split(' ')) {
          const range = document.createRange();
          range.setStart(text, offset);
          range.setEnd(text, offset + word.length);
          const parts = [...range.getClientRects()].filter((rect) => rect.width > 0);
          const width = parts.reduce((sum, rect) => sum + rect.width, 0);
          if (new Set(parts.map((rect) => Math.round(rect.top))).size > 1 && width < line) {
            const parent = text.parentElement;
            broken.push('"' + word + '" in <' + parent.tagName.toLowerCase() + ' class="' + parent.className + '">');
          }
          offset += word.length + 1;
        }
      }
    }
    return broken;
  })()`);
}

/** A row of the table named `caption` (cards at phone width) holding `text`. */
export function row(page: Page, caption: string, text: string): Locator {
  return page
    .locator('table', { has: page.locator(`caption:text-is("${caption}")`) })
    .locator('tr', { hasText: text });
}

export async function cell(row: Locator, column: string): Promise<string> {
  return ((await row.locator(`td[data-label="${column}"]`).textContent()) ?? '').trim();
}

/** Moves within the app as a click on a link would (no reload, the key stays in the tab). */
export async function goTo(page: Page, view: string): Promise<void> {
  await page.evaluate(
    `history.pushState(null, '', '/console${view}'); dispatchEvent(new PopStateEvent('popstate'))`,
  );
  // Two frames: the view's effects (its loads, which mark it busy) run after a paint, so that
  // settling does not read the view that was there before.
  await page.evaluate(
    'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))',
  );
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  await settle(page);
}

/** The outcome said beside the submit button named `name` (forms.tsx, Submit): the status region that follows it. */
export function outcomeOf(page: Page, name: string): Locator {
  return page.locator(`button[type="submit"]:text-is("${name}") + [role="status"]`);
}

/** The message tied to the control labelled `label` by aria-describedby as its error, once it shows. */
export async function errorOf(page: Page | Locator, label: string, nth = 0): Promise<string | null> {
  const control = page.getByLabel(label, { exact: true }).nth(nth);
  await expect.poll(() => control.getAttribute('aria-invalid')).toBe('true');
  const describedBy = (await control.getAttribute('aria-describedby')) ?? '';
  return control
    .page()
    .locator(`[id="${describedBy.split(' ').pop()}"]`)
    .textContent();
}

/** The limits stated beside the control labelled `label`, before anything is typed (forms.tsx, Field). */
export function limitsOf(scope: Page | Locator, label: string, nth = 0): Locator {
  const tab = 'goto' in scope ? scope : scope.page();
  return scope
    .locator('.field', { has: tab.getByLabel(label, { exact: true }) })
    .nth(nth)
    .locator('.limits');
}

/** The addresses the page asks for with `method` from now on: what a check before sending kept back is not among them. */
export function requestsSent(page: Page, method: string): string[] {
  const sent: string[] = [];
  page.on('request', (request) => {
    if (request.method() === method) sent.push(request.url());
  });
  return sent;
}
