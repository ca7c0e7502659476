// The API reference at /docs on both APIs: served under the pages' security headers from the package's own
// files, invisible to the OpenAPI document and to every other path; and in Chromium it renders every
// operation of that API, runs "Try it out" against the same server, and shows no console error, while every
// request it makes stays on the server's origin.
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECURITY_HEADERS } from '../../../src/platform/http/index.ts';
import { consoleOf, launchBrowser } from '../../helpers/browser.ts';
import { problemOf } from '../../helpers/http.ts';
import { useJobsApi } from '../../helpers/jobs.ts';
import { useMail } from '../../helpers/mail.ts';

const jobs = useJobsApi();
const mail = useMail();
const APIS = [
  { name: 'jobs', url: () => jobs.api.url, example: 'POST /v1/jobs' },
  { name: 'mail', url: () => mail.mail.url, example: 'GET /api/v1/domains/' },
];
const PACKAGE_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The same-origin files a page names in `src` and `href`. */
const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);

describe.each(APIS)('GET /docs on the $name API', ({ url }) => {
  it('is a page under the security headers of the web inbox, with no inline script and nothing from elsewhere', async () => {
    const res = await fetch(`${url()}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(res.headers.get(name), name).toBe(value);
    const csp = Object.fromEntries(
      res.headers
        .get('content-security-policy')!
        .split(/;\s*/)
        .map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]),
    );
    expect(csp).toMatchObject({ 'default-src': "'none'", 'script-src': "'self'", 'connect-src': "'self'", 'frame-ancestors': "'none'" });
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i); // every script is a file
    expect(html).not.toMatch(/\son[a-z]+=/i);
    const assets = assetsOf(html);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    expect(assets.filter((a) => !a.startsWith('/docs/'))).toEqual([]);
  });

  it('serves each file the page names with the same headers, the package files as the package has them', async () => {
    const assets = assetsOf(await (await fetch(`${url()}/docs`)).text());
    for (const asset of assets) {
      const res = await fetch(`${url()}${asset}`);
      expect(res.status, asset).toBe(200);
      expect(res.headers.get('content-security-policy'), asset).toBe(SECURITY_HEADERS['content-security-policy']);
      const body = Buffer.from(await res.arrayBuffer());
      const file = join(PACKAGE_DIR, asset.slice('/docs/'.length));
      const size = await stat(file).then(
        (s) => s.size,
        () => undefined,
      );
      // Our configuration script is ours; every other file is the package's, byte for byte in length.
      if (asset !== '/docs/reference.js') expect(body.length, asset).toBe(size);
    }
  });

  it('leaves every other path to the API: 404 problems, hidden from /openapi.json, no page headers on the API', async () => {
    for (const path of ['/docs/index.html', '/docs/package.json', '/docs/swagger-initializer.js', '/docs/x', '/docsx']) {
      const res = await fetch(`${url()}${path}`);
      expect(res.status, path).toBe(404);
      expect((await problemOf(res)).code).toBe('not_found');
    }
    const doc = (await (await fetch(`${url()}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/docs'))).toEqual([]);
    const health = await fetch(`${url()}/healthz`);
    expect(health.headers.get('content-security-policy')).toBeNull();
  });
});

describe('the web inbox keeps /', () => {
  it('on the mail API, while the jobs API has no page there', async () => {
    const inbox = await fetch(`${mail.mail.url}/`);
    expect(inbox.status).toBe(200);
    expect(await inbox.text()).not.toContain('/docs/');
    expect((await fetch(`${jobs.api.url}/`)).status).toBe(404);
  });
});

describe('/docs in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it.each(APIS)(
    'renders every operation of the $name API and runs one, with no console error and no foreign request',
    async ({ url, example }) => {
      const origin = new URL(url()).origin;
      const page = await browser.newPage();
      const lines = consoleOf(page);
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      // Anything not ours is refused, so a foreign request would also show as a console error.
      await page.route(
        (target) => target.origin !== origin,
        (route) => route.abort(),
      );

      await page.goto(`${url()}/docs`);
      await page.locator('.opblock').first().waitFor();
      const doc = (await (await fetch(`${url()}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
      const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
      const shown = await page.locator('.opblock-summary').evaluateAll((blocks) =>
        blocks.map((b) => {
          const method = b.querySelector('.opblock-summary-method')?.textContent;
          return `${method} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`;
        }),
      );
      expect(shown.sort()).toEqual(documented.sort());
      expect(shown).toContain(example);

      // Interactive: "Try it out" on GET /healthz calls this server and shows its answer.
      await page.locator('#operations-operations-get_healthz').click();
      await page.getByRole('button', { name: 'Try it out' }).click();
      await page.getByRole('button', { name: 'Execute' }).click();
      const live = page.locator('.live-responses-table tr.response .response-col_status').first();
      await live.waitFor();
      expect((await live.textContent())?.trim()).toBe('200');
      expect(requests).toContain(`${origin}/healthz`);

      expect(lines.filter((l) => l.startsWith('error') || l.startsWith('pageerror'))).toEqual([]);
      expect(requests.filter((r) => new URL(r).origin !== origin)).toEqual([]);
      expect(requests).toContain(`${origin}/openapi.json`);
      await page.close();
    },
  );
});
