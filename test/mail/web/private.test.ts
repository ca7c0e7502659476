// A private inbox in the web inbox: without its owner's key the page shows exactly what it shows for an
// unknown address; a wrong key (another account's, or garbage) leaves it so; the right key opens it, lists its
// mail, receives new mail live (the stream read with fetch and the key in a header), downloads the raw message
// as a blob, survives a reload in the same tab but not a new tab, and resumes after a restart of the API with
// Last-Event-ID. The key is kept in sessionStorage only: never in localStorage, never in a URL the page
// requests; and every API call of the opened page carries it.
import { readFile } from 'node:fs/promises';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKey, JWT_SECRET, keyOf } from '../../helpers/accounts.ts';
import { consoleOf, launchBrowser } from '../../helpers/browser.ts';
import { DOMAIN, startMail, useMail } from '../../helpers/mail.ts';

const ENV = { MAIL_JWT_SECRET: JWT_SECRET };
const t = useMail({ env: ENV });
const ADDRESS = `vault.box@${DOMAIN}`;
let key: string;
let otherKey: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let lines: string[];
const requests: Request[] = [];

const shot = (p: Page, name: string) =>
  p.screenshot({ path: new URL(`../../../docs/screenshots/${name}.png`, import.meta.url).pathname, animations: 'disabled' });
const rows = (p: Page = page) => p.getByTestId('message-row');
const storageOf = (p: Page, which: 'localStorage' | 'sessionStorage') => p.evaluate<string>(`JSON.stringify(${which})`);
/** What the closed page says, with the address it names taken out. */
const closedText = async (p: Page, address: string) =>
  ((await p.getByTestId('missing').textContent()) ?? '')
    .replaceAll(address, '<address>')
    .replace('Nothing opened with that key.', '')
    .trim();

async function unlock(p: Page, withKey: string) {
  await p.getByLabel('API key').fill(withKey);
  await p.getByRole('button', { name: 'Open', exact: true }).click();
}

beforeAll(async () => {
  key = (await keyOf(t.mail, 'owner-account')).plaintext;
  otherKey = (await keyOf(t.mail, 'other-account')).plaintext;
  const made = await t.mail.call('/api/v1/inboxes', {
    body: { domain: DOMAIN, local_part: 'vault.box', private: true },
    headers: apiKey(key),
  });
  expect(made.status).toBe(201);
  await t.mail.send({ from: 'Bank <alerts@bank.example>', to: ADDRESS, subject: 'Your sign-in code', text: 'Your code is 905512.' });
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  context.on('request', (r) => requests.push(r));
  page = await context.newPage();
  lines = consoleOf(page);
});
afterAll(async () => {
  await browser?.close();
});

describe('a private inbox in the web inbox', () => {
  it('shows the closed state of an unknown address without the key, and stays so with a wrong key', async () => {
    await page.goto(`${t.mail.url}/#nobody-here@${DOMAIN}`);
    await page.getByTestId('missing').waitFor();
    const unknown = await closedText(page, `nobody-here@${DOMAIN}`);

    await page.goto(`${t.mail.url}/#${ADDRESS}`);
    await expect.poll(() => page.getByTestId('missing-text').textContent()).toContain(ADDRESS);
    expect(await closedText(page, ADDRESS)).toBe(unknown);
    expect(await page.getByLabel('API key').getAttribute('type')).toBe('password');
    await shot(page, 'private-closed');

    for (const wrong of [otherKey, 'tm_notakey_0000']) {
      await unlock(page, wrong);
      await page.getByTestId('not-opened').waitFor();
      expect(await page.getByRole('button', { name: 'Open', exact: true }).isEnabled()).toBe(true);
      expect(await closedText(page, ADDRESS)).toBe(unknown);
      expect(await page.getByLabel('API key').inputValue()).toBe('');
      expect(await page.getByTestId('address').count()).toBe(0);
    }
    expect(await storageOf(page, 'sessionStorage')).toBe('{}');
  });

  it('opens with the right key, lists its mail and receives new mail live', async () => {
    const from = requests.length;
    await unlock(page, key);
    await expect.poll(() => page.getByTestId('address').textContent()).toBe(ADDRESS);
    await expect.poll(() => page.getByTestId('live').textContent()).toBe('live');
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().textContent()).toContain('Your sign-in code');

    await t.mail.send({ from: 'Bank <alerts@bank.example>', to: `vault.box+login@${DOMAIN}`, subject: 'New device', text: 'Code 118822.' });
    await page.getByTestId('toast').filter({ hasText: 'New device' }).waitFor();
    await expect.poll(() => rows().count()).toBe(2);
    expect(await rows().first().getByTestId('tag').textContent()).toBe('Tag: +login');
    await rows().filter({ hasText: 'New device' }).click();
    await expect.poll(() => page.getByTestId('otp').locator('.code').textContent()).toBe('118822');
    await shot(page, 'private-open');

    // Every API call since the key was given carried it, the stream included.
    const calls = requests.slice(from).filter((r) => new URL(r.url()).pathname.startsWith('/api/v1/'));
    const paths = calls.map((r) => new URL(r.url()).pathname);
    expect(paths).toContain(`/api/v1/sse/inbox/${encodeURIComponent(ADDRESS)}`);
    expect(paths.filter((p) => p.startsWith('/api/v1/messages/')).length).toBeGreaterThan(0);
    for (const call of calls) expect(await call.headerValue('x-api-key'), call.url()).toBe(key);
  });

  it('downloads the raw message as a blob fetched with the key', async () => {
    const id = await openId();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download .eml' }).click()]);
    expect(download.url()).toMatch(/^blob:/);
    expect(download.suggestedFilename()).toBe(`${id}.eml`);
    const saved = await readFile((await download.path())!, 'utf8');
    const raw = await (await t.mail.call(`/api/v1/messages/${id}/raw`, { headers: apiKey(key) })).text();
    expect(saved).toBe(raw);
    expect(saved).toContain('Subject: New device');
  });

  it('stays open across a reload of the tab, and asks again in a new tab', async () => {
    await page.reload();
    await expect.poll(() => rows().count()).toBe(2);
    expect(await page.getByTestId('address').textContent()).toBe(ADDRESS);
    expect(await storageOf(page, 'sessionStorage')).toContain(key);

    const tab = await context.newPage();
    await tab.goto(`${t.mail.url}/`); // the address comes from localStorage, the key does not
    await expect.poll(() => tab.getByTestId('missing-text').textContent()).toContain(ADDRESS);
    expect(await storageOf(tab, 'sessionStorage')).toBe('{}');
    await tab.close();
  });

  it('locks again when asked: the key is forgotten', async () => {
    await page.getByRole('button', { name: 'Lock (forget the key)' }).click();
    await page.getByTestId('missing').waitFor();
    expect(await storageOf(page, 'sessionStorage')).toBe('{}');
    await page.reload();
    await page.getByTestId('missing').waitFor();
  });

  it('resumes the live stream after the API restarts, replaying what came meanwhile (Last-Event-ID)', async () => {
    const api = await startMail(t.db, { env: ENV });
    const port = Number(new URL(api.url).port);
    const p = await context.newPage();
    await p.goto(`${api.url}/#${ADDRESS}`);
    await unlock(p, key);
    await expect.poll(() => p.getByTestId('live').textContent()).toBe('live');
    await t.mail.send({ from: 'Bank <alerts@bank.example>', to: ADDRESS, subject: 'Before the restart', text: 'one' });
    await p.getByTestId('toast').filter({ hasText: 'Before the restart' }).waitFor();
    const lastSeen = (
      (await (await t.mail.call(`/api/v1/inboxes/${ADDRESS}/messages`, { headers: apiKey(key) })).json()) as { id: string }[]
    )[0]!.id;

    const streams = () => requests.filter((r) => r.url() === `${api.url}/api/v1/sse/inbox/${encodeURIComponent(ADDRESS)}`);
    const before = streams().length;
    await api.close();
    await t.mail.send({ from: 'Bank <alerts@bank.example>', to: ADDRESS, subject: 'While it was away', text: 'two' });
    const again = await startMail(t.db, { port, env: ENV });
    try {
      // The toast comes from the stream's replay: the list alone is read again on every (re)connection. The page
      // retries every 3 s while the API is down; on a loaded machine a restart can take a few of those.
      await p.getByTestId('toast').filter({ hasText: 'While it was away' }).waitFor({ timeout: 45_000 });
      await expect.poll(() => p.getByTestId('live').textContent()).toBe('live');
      const resumed = streams().slice(before);
      expect(resumed.length).toBeGreaterThan(0);
      for (const r of resumed) {
        expect(await r.headerValue('last-event-id')).toBe(lastSeen);
        expect(await r.headerValue('x-api-key')).toBe(key);
      }
    } finally {
      await p.close();
      await again.close();
    }
  }, 90_000);

  it('never put the key in localStorage or in any URL the page requested', async () => {
    expect(await storageOf(page, 'localStorage')).not.toContain(key);
    expect(await storageOf(page, 'localStorage')).toContain(ADDRESS); // the address is kept: the check can see storage
    const urls = requests.map((r) => r.url());
    expect(urls.length).toBeGreaterThan(10);
    const encoded = [key, encodeURIComponent(key)];
    expect(urls.filter((u) => encoded.some((k) => u.includes(k)))).toEqual([]);
    expect(page.url()).toBe(`${t.mail.url}/#${ADDRESS}`);
    expect(lines.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  });
});

/** The id of the message open on the page ("New device"), as the API lists it. */
async function openId(): Promise<string> {
  const list = (await (await t.mail.call(`/api/v1/inboxes/${ADDRESS}/messages`, { headers: apiKey(key) })).json()) as {
    id: string;
    subject: string;
  }[];
  return list.find((m) => m.subject === 'New device')!.id;
}
