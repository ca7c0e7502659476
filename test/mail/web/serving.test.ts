// The page's HTTP side: security headers, no inline script, cache rules, the API's 404s unchanged, and the
// JavaScript budget (≤ 60 KB gzipped, what the browser downloads).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { WEB_ASSETS_DIR } from '../../../src/mail/web/index.ts';
import { useMail } from '../../helpers/mail.ts';

const t = useMail();

describe('the web inbox at /', () => {
  it('serves the page with strict security headers and no inline script', async () => {
    const res = await t.mail.call('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    const directives = Object.fromEntries(csp.split(/;\s*/).map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
    expect(directives['default-src']).toBe("'none'");
    expect(directives['script-src']).toBe("'self'");
    expect(directives['frame-ancestors']).toBe("'none'");
    expect(directives['object-src']).toBe("'none'");
    expect(directives['base-uri']).toBe("'none'");
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i); // every script is a file
    expect(html).not.toMatch(/\son[a-z]+=/i); // no inline handlers
  });

  it('serves hashed assets as immutable, with the same headers', async () => {
    const html = await (await t.mail.call('/')).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const res = await t.mail.call(script!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('cache-control')).toContain('immutable');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('leaves the API as it was: unknown paths are 404 problems, API answers carry no page policy', async () => {
    const missing = await t.mail.call('/nope.js');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const domains = await t.mail.call('/api/v1/domains/');
    expect(domains.status).toBe(200);
    expect(domains.headers.get('content-security-policy')).toBeNull();
    const doc = (await (await t.mail.call('/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/api/') && !p.endsWith('z'))).toEqual([]);
  });

  it('keeps the JavaScript within 60 KB gzipped', async () => {
    const files = (await readdir(join(WEB_ASSETS_DIR, 'assets'))).filter((f) => f.endsWith('.js'));
    let total = 0;
    for (const file of files) total += gzipSync(await readFile(join(WEB_ASSETS_DIR, 'assets', file)), { level: 9 }).length;
    console.log(`web inbox JavaScript: ${(total / 1024).toFixed(1)} KB gzipped in ${files.length} file(s)`);
    expect(total).toBeLessThanOrEqual(60 * 1024);
  });
});
