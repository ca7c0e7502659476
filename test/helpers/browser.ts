// Chromium driven by playwright-core (which downloads no browser): the one test/browser-setup.ts provides.
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import { inject } from 'vitest';

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: inject('chromiumPath') });
}

/** Every console line of a page and of its frames, and every uncaught page error, as text. */
export function consoleOf(page: Page): string[] {
  const lines: string[] = [];
  page.on('console', (message: ConsoleMessage) => lines.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => lines.push(`pageerror: ${error.message}`));
  return lines;
}
