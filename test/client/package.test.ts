// `domainkit/client` as a user gets it: the package is packed (`npm pack`, whose prepack builds it; once a run,
// test/helpers/pack.ts) and opened in a clean folder, then imported by name from plain Node.js, type-checked by
// a consumer's TypeScript, and loaded in Chromium; each calls the mail API of this test file and reads a code
// mailed over SMTP.
//
// The tarball is unpacked into the clean folder's node_modules/domainkit by hand rather than `npm install`ed: an
// install would bring every dependency of the server (from the registry, slowly), whereas the client must need
// none. With nothing else in node_modules, a successful `import 'domainkit/client'` proves the export map, the
// built files, and that nothing the client imports lies outside its own folder.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.ts';
import { useMail } from '../helpers/mail.ts';
import { packedTarball, run } from '../helpers/pack.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const t = useMail();
let work: string;
let consumer: string;
let installed: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'domainkit-client-package-'));
  const tarball = await packedTarball();

  consumer = join(work, 'consumer');
  installed = join(consumer, 'node_modules/domainkit');
  await mkdir(installed, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  await writeFile(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
}, 300_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('domainkit/client from the packed package, in a folder with nothing else installed', () => {
  it('plain Node.js imports it by name and reads a code mailed over SMTP; only ./client and ./package.json are exported', async () => {
    await writeFile(
      join(consumer, 'use-client.mjs'),
      `import { MailClient, MailApiError, WaitTimeoutError } from 'domainkit/client';
const say = (value) => process.stdout.write(JSON.stringify(value) + '\\n');
const refused = async (name) => import(name).then(() => 'imported', (err) => err.code);
say({ root: await refused('domainkit'), cli: await refused('domainkit/dist/cli.js'), errors: [MailApiError.name, WaitTimeoutError.name] });
const client = new MailClient({ baseUrl: process.argv[2] });
const { address } = await client.createInbox();
say({ address });
const { code } = await client.waitForCode(address, { timeout: 20000 });
say({ code });
`,
    );
    const child = spawn(process.execPath, ['use-client.mjs', t.mail.url], { cwd: consumer, env: { PATH: process.env.PATH } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const next = async () => {
      const line = await lines.next();
      if (line.done) throw new Error(`the consumer stopped early: ${stderr}`);
      return JSON.parse(line.value) as Record<string, unknown>;
    };
    expect(await next()).toEqual({
      root: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
      cli: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
      errors: ['MailApiError', 'WaitTimeoutError'],
    });
    const { address } = (await next()) as { address: string };
    await t.mail.send({ from: 'shop@example.org', to: address, subject: 'Code', text: 'Your verification code is 640213.' });
    expect(await next()).toEqual({ code: '640213' });
  });

  it("the built client's import graph stays in dist/client/: no package, no node: module, no server code", async () => {
    const reached = new Set<string>();
    const outside: string[] = [];
    const visit = async (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      const text = await readFile(file, 'utf8');
      for (const [, specifier] of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)) {
        const target = resolve(dirname(file), specifier!);
        if (!specifier!.startsWith('.') || !target.startsWith(join(installed, 'dist/client/')))
          outside.push(`${relative(installed, file)} → ${specifier}`);
        else await visit(target);
      }
    };
    await visit(join(installed, 'dist/client/index.js'));
    expect(outside).toEqual([]);
    expect([...reached].map((file) => relative(installed, file)).sort()).toEqual(
      ['client.js', 'errors.js', 'http.js', 'index.js', 'wait.js'].map((name) => `dist/client/${name}`),
    );
  });

  it("a TypeScript consumer type-checks against its declarations (the kinds of links are the document's)", async () => {
    await writeFile(
      join(consumer, 'check.ts'),
      `import { type LinkKind, MailClient, type Message } from 'domainkit/client';
const client = new MailClient({ baseUrl: 'http://localhost:8081' });
const kind: LinkKind = 'verify';
const found = await client.waitForLink('a@inbox.localhost', { kind });
export const url: string = found.url;
export const message: Message = found.message;
// @ts-expect-error: not a kind of link
await client.waitForLink('a@inbox.localhost', { kind: 'nonsense' });
`,
    );
    const options = {
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2023',
      lib: ['es2023', 'dom'],
      types: [],
      strict: true,
      noEmit: true,
    };
    await writeFile(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, include: ['check.ts'] }));
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', consumer]).then(
      () => '',
      (err: { stdout: string }) => err.stdout,
    );
    expect(result).toBe('');
  });

  it('Chromium loads the built client as a module and reads a code with it', async () => {
    const site = await serveClient(join(installed, 'dist/client'), t.mail.url);
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      await page.goto(`${site.url}/`);
      await page.waitForFunction(() => (globalThis as any).client !== undefined);
      const address = await page.evaluate(async () => (await (globalThis as any).client.createInbox()).address as string);
      await t.mail.send({ from: 'shop@example.org', to: address, subject: 'Code', text: 'Your verification code is 551177.' });
      const code = await page.evaluate(
        async (to) => (await (globalThis as any).client.waitForCode(to, { timeout: 20_000 })).code as string,
        address,
      );
      expect(code).toBe('551177');
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      site.server.close();
    }
  });
});

const PAGE = `<!doctype html><title>client</title>
<script type="module">
  import { MailClient } from '/client/index.js';
  window.client = new MailClient({ baseUrl: location.origin });
</script>`;

/**
 * A page's origin serving the built client under /client/ and passing /api/ on to the mail API, as a site that
 * puts the API behind its own origin does (the API sends no CORS headers).
 */
async function serveClient(dir: string, api: string): Promise<{ server: Server; url: string }> {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://page').pathname;
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    if (path.startsWith('/client/') && /^[a-z-]+\.js$/.test(path.slice('/client/'.length))) {
      return res.writeHead(200, { 'content-type': 'text/javascript' }).end(await readFile(join(dir, path.slice('/client/'.length))));
    }
    if (path.startsWith('/api/')) {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers: Record<string, string> = {};
      for (const name of ['accept', 'content-type', 'x-api-key', 'authorization'])
        if (req.headers[name]) headers[name] = String(req.headers[name]);
      const upstream = await fetch(new URL(req.url!, api), {
        method: req.method,
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      return res
        .writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/octet-stream' })
        .end(Buffer.from(await upstream.arrayBuffer()));
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
