// The Playwright example of examples/signup/ (README.md there, docs/client.md): a real Chromium signs up on the
// example site with an address made by `domainkit/client`, the site mails a code through domainkit's SMTP
// receiver, the test reads it with waitForCode and types it, and sees the success page.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSignupServer, type SignupServer } from '../../examples/signup/server.ts';
import { MailClient } from '../../src/client/index.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { useMail } from '../helpers/mail.ts';

const t = useMail();
let site: SignupServer;
let browser: Browser;

beforeAll(async () => {
  site = await startSignupServer({ smtp: { host: '127.0.0.1', port: t.mail.smtpPort } });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

it('signs up with a fresh address: the code mailed over SMTP is read with waitForCode and completes the sign-up', async () => {
  const mail = new MailClient({ baseUrl: t.mail.url });
  const { address } = await mail.createInbox();
  const page = await browser.newPage();
  try {
    await page.goto(site.url);
    await page.getByLabel('Email').fill(address);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await expect.poll(() => page.getByRole('heading').textContent()).toBe('Check your mail');

    const { code, message } = await mail.waitForCode(address, { timeout: 20_000 });
    expect(code).toMatch(/^\d{6}$/);
    expect(message.subject).toBe('Your Example Shop sign-up code');

    // A wrong code first: the page refuses it (so the success below is the code's doing).
    await page.getByLabel('Code').fill(code === '999999' ? '999998' : '999999');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('That code is not right.');

    await page.getByLabel('Code').fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => page.getByRole('heading').textContent()).toBe('Welcome');
    expect(await page.locator('main').textContent()).toContain(`Your account ${address} is confirmed.`);
  } finally {
    await page.close();
  }
});
