// The production install path, as an operator takes it: `npm pack` builds the package (the prepack script), the
// tarball is installed into an empty folder with `--omit=dev`, and its `domainkit start` runs both services.
// The package is built from a copy of the sources, so the build never rewrites the dist/ that other test files
// of this run serve the web inbox from, and once a run (test/helpers/pack.ts).
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli } from './helpers/cli.ts';
import { npm, packedTarball, run } from './helpers/pack.ts';

let work: string;
let tarball: string;
let app: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'domainkit-package-'));
  await chmod(work, 0o755); // as root, the embedded PostgreSQL runs as the postgres user and must reach its binaries
  tarball = await packedTarball();
  app = join(work, 'app');
  await mkdir(app);
  await npm(['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', tarball], app);
}, 300_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('holds the built program, the web page and the migrations, and no sources, tests or source maps', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout
      .split('\n')
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ''));
    for (const wanted of [
      'bin/domainkit.js',
      'dist/cli.js',
      'dist/web/index.html',
      'migrations/1763700000000_baseline.sql',
      'package.json',
      'README.md',
    ]) {
      expect(files, wanted).toContain(wanted);
    }
    expect(files.filter((f) => /^(src|test|bench)\/|\.map$|tsbuildinfo/.test(f))).toEqual([]);
  });

  it('installed with --omit=dev, `domainkit mcp` answers an MCP initialize on stdout (its SDK is a runtime dependency)', async () => {
    const bin = join(app, 'node_modules/domainkit/bin/domainkit.js');
    const child = spawn(process.execPath, [bin, 'mcp', '--url', 'http://127.0.0.1:9'], { cwd: app, env: { PATH: process.env.PATH } });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const initialize = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'package-test', version: '1' } };
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initialize })}\n`);
    await expect.poll(() => stdout.includes('\n'), { timeout: 30_000 }).toBe(true);
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(JSON.parse(stdout.split('\n')[0]!)).toMatchObject({ id: 1, result: { serverInfo: { name: 'domainkit' } } });
  });

  it('installed with --omit=dev into an empty folder, `domainkit start` serves both APIs, their /docs pages, the web inbox and SMTP, and stops on Ctrl-C', async () => {
    const bin = join(app, 'node_modules/domainkit/bin/domainkit.js');
    const data = join(work, 'data');
    const running = await startCli(
      ['start'],
      { DATA_DIR: data, HOST: '127.0.0.1', JOBS_PORT: '0', MAIL_PORT: '0', SMTP_PORT: '0' },
      { timeoutMs: 120_000, script: bin, cwd: app },
    );
    let code: number | null;
    try {
      const { 'jobs-api': jobs, 'mail-api': mail, smtp } = running.addresses;
      for (const base of [jobs, mail]) {
        const res = await fetch(`${base}/readyz`);
        expect(res.status, base).toBe(200);
        expect(await res.json()).toEqual({ status: 'ready' });
      }
      for (const base of [jobs, mail]) {
        // The interactive reference, with the renderer's files from the installed dependency.
        for (const path of ['/docs', '/docs/swagger-ui-bundle.js', '/docs/reference.js']) {
          const res = await fetch(`${base}${path}`);
          expect(res.status, `${base}${path}`).toBe(200);
          await res.arrayBuffer(); // read it all: a response left unread holds the server's graceful stop
        }
      }
      const page = await fetch(`${mail}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      await page.arrayBuffer();
      expect(smtp).toMatch(/^smtp:\/\//);
    } finally {
      code = await running.stop('SIGINT');
    }
    expect(code, running.output()).toBe(0);
  });
});
