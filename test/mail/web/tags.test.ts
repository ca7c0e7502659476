// Tags in the web inbox: mail sent over SMTP to name+tag@domain lands in name@domain's page with its tag shown
// in the list (a small badge), the toast and the message; a message without a tag shows none.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { consoleOf, launchBrowser } from '../../helpers/browser.ts';
import { useMail } from '../../helpers/mail.ts';

const t = useMail();
let browser: Browser;
let page: Page;
let lines: string[];

beforeAll(async () => {
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  lines = consoleOf(page);
});
afterAll(async () => {
  await browser?.close();
});

it('shows the tag of mail sent to name+tag@domain in the list, the toast and the message, and none without', async () => {
  await page.goto(`${t.mail.url}/`);
  await expect.poll(() => page.getByTestId('live').textContent()).toBe('live');
  const address = (await page.getByTestId('address').textContent())!;
  const [name, domain] = address.split('@');
  await t.mail.send({ from: 'Shop <hi@shop.example>', to: address, subject: 'Plain one', text: 'no tag here' });
  await expect.poll(() => page.getByTestId('message-row').count()).toBe(1);
  await t.mail.send({ from: 'Shop <hi@shop.example>', to: `${name}+SignUp-2@${domain}`, subject: 'With a tag', text: 'a tag' });
  await expect.poll(() => page.getByTestId('message-row').count()).toBe(2);
  expect(await page.getByTestId('toast').textContent()).toContain('+signup-2');

  const tagged = page.getByTestId('message-row').filter({ hasText: 'With a tag' });
  const untagged = page.getByTestId('message-row').filter({ hasText: 'Plain one' });
  expect(await tagged.getByTestId('tag').textContent()).toBe('Tag: +signup-2');
  expect(await untagged.getByTestId('tag').count()).toBe(0);
  await page.screenshot({ path: new URL('../../../docs/screenshots/tags.png', import.meta.url).pathname, animations: 'disabled' });

  await tagged.click();
  const tag = page.getByTestId('message-tag');
  await tag.waitFor();
  expect(await tag.textContent()).toBe('Tag: +signup-2');
  expect(await tag.getAttribute('title')).toBe(`Sent to ${name}+signup-2@${domain}`);
  await untagged.click();
  await page.locator('h2').filter({ hasText: 'Plain one' }).waitFor();
  expect(await page.getByTestId('message-tag').count()).toBe(0);
  expect(lines.filter((l) => l.startsWith('pageerror'))).toEqual([]);
});
