// A hostile HTML email in the web inbox runs nothing and loads nothing: every trick in it points at a local
// "trap" server that must receive no request at all, and the page's console (the frame's included) must show
// none of the scripts' marks.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { consoleOf, launchBrowser } from '../../helpers/browser.ts';
import { useMail } from '../../helpers/mail.ts';

const t = useMail();
let trap: Server;
const trapped: string[] = [];

beforeAll(async () => {
  trap = createServer((req, res) => {
    trapped.push(`${req.method} ${req.url}`);
    res.end('<script>console.log("HOSTILE-served")</script>');
  });
  await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => trap.close(resolve));
});

function hostileHtml(base: string): string {
  return `<html><head>
<meta http-equiv="refresh" content="0;url=${base}/refresh">
<base href="${base}/base/">
<link rel="stylesheet" href="${base}/link.css">
<style>@import url("${base}/import.css"); .bg { background: url("${base}/bg.png") }</style>
<script src="${base}/external.js"></script>
</head><body onload="console.log('HOSTILE-onload')">
<p class="bg">Your code is 111222</p>
<script>console.log('HOSTILE-script'); fetch('${base}/fetch')</script>
<img src="${base}/pixel.png" width="1" height="1">
<img src="x:broken" onerror="console.log('HOSTILE-onerror'); new Image().src='${base}/onerror'">
<svg onload="console.log('HOSTILE-svg')"><image href="${base}/svg.png"/></svg>
<iframe src="${base}/frame"></iframe>
<object data="${base}/object"></object>
<video poster="${base}/poster.png" src="${base}/video.mp4" autoplay></video>
<form action="${base}/form" method="post"><input name="a" value="1"><button id="go" type="submit">Claim prize</button></form>
<a id="js" href="javascript:console.log('HOSTILE-href')">click me</a>
</body></html>`;
}

it('runs nothing and loads nothing from a hostile HTML email', async () => {
  const base = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const lines = consoleOf(page);
    // Chromium reports a fetch its CSP refused as a request that then fails (net::ERR_BLOCKED_BY_CSP), so
    // the browser's side is checked as: no answer from anywhere but our server, every other attempt refused
    // by CSP (Playwright names the reason `csp`).
    const isForeign = (url: string) => !url.startsWith(t.mail.url) && !url.startsWith('data:') && !url.startsWith('about:');
    const answered: string[] = [];
    const refused: string[] = [];
    page.on('response', (response) => {
      if (isForeign(response.url())) answered.push(response.url());
    });
    page.on('requestfailed', (request) => {
      if (isForeign(request.url())) refused.push(request.failure()?.errorText ?? 'failed');
    });
    await page.goto(`${t.mail.url}/`);
    const address = (await page.getByTestId('address').textContent())!;
    await t.mail.send({ from: 'Prize <win@evil.example>', to: address, subject: 'You won', html: hostileHtml(base), text: 'plain' });
    await page.getByTestId('message-row').click();
    const frame = page.frameLocator('iframe.body-html');
    await frame.locator('p.bg').waitFor();
    // What a person might do: press the form's button, click the javascript: link.
    await frame.locator('#go').click();
    await frame.locator('#js').click();
    // Give anything that was going to happen (a refresh after 0 s, a late image) time to happen.
    await page.waitForTimeout(1500);

    expect(trapped).toEqual([]);
    expect(answered).toEqual([]);
    for (const reason of refused) expect(reason).toBe('csp');
    expect(lines.filter((l) => l.includes('HOSTILE'))).toEqual([]);
    expect(lines.filter((l) => l.startsWith('pageerror'))).toEqual([]);
    // The page is still ours, with the message open.
    expect(page.url()).toBe(`${t.mail.url}/`);
    expect(await page.locator('h2').filter({ hasText: 'You won' }).count()).toBe(1);
    // The frame is sandboxed without scripts, forms or same-origin, and carries its own policy.
    const sandbox = await page.locator('iframe.body-html').getAttribute('sandbox');
    expect(sandbox?.split(' ').sort()).toEqual(['allow-popups', 'allow-popups-to-escape-sandbox']);
    expect(await frame.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')).toContain("default-src 'none'");
    expect(await frame.locator('script, iframe, object, base, link, meta[http-equiv="refresh"]').count()).toBe(0);
  } finally {
    await browser.close();
  }
});
