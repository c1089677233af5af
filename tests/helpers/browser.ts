import fs from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium: browser tests run where it is installed and are skipped elsewhere. */
const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);

/**
 * Headless Chromium as the tests drive it: no sandbox (tests run as root), and none of its own
 * network traffic (background services, updates, sync), which this machine's closed network refuses.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
