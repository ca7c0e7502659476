// `npm run demo` as a newcomer meets it: it starts, says its numbers are fake, and the curl line it prints,
// pasted into a shell, creates a job that completes against the fakes. Its own walk-through shows each source's
// cost and the cache: a dry run, then the same job ended at once from cached rows at cost 0. Ctrl-C leaves
// nothing behind.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const DEMO = fileURLToPath(new URL('../../src/dev/demo.ts', import.meta.url));
const exec = promisify(execFile);

let child: ChildProcess | undefined;
let dataDir: string | undefined;
afterAll(async () => {
  child?.kill('SIGKILL');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

function startDemo(env: Record<string, string>): Promise<{ banner: string; output: () => string; exited: Promise<number | null> }> {
  child = spawn(process.execPath, [DEMO], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } });
  const exited = new Promise<number | null>((r) => child!.on('close', (code) => r(code)));
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`demo not ready:\n${stdout}\n${stderr}`)), 60_000);
    child!.stdout!.on('data', (d: Buffer) => {
      stdout += d;
      if (stdout.includes('Ctrl-C stops everything.')) {
        clearTimeout(timer);
        resolve({ banner: stdout, output: () => stdout, exited });
      }
    });
    void exited.then((code) => reject(new Error(`demo exited with ${code}:\n${stdout}\n${stderr}`)));
  });
}

describe('npm run demo', () => {
  it('prints a curl that creates a job which completes over all six sources, shows cost and the cache; Ctrl-C stops it cleanly', {
    timeout: 120_000,
  }, async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'domainkit-demo-'));
    await chmod(dataDir, 0o755); // as root, postgres runs as the postgres user and must reach this folder
    const { banner, output, exited } = await startDemo({
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      JOBS_PORT: '0',
      MAIL_PORT: '0',
      SMTP_PORT: '0',
    });
    expect(banner).toMatch(/every SEO number it gives is FAKE/);

    const curl = banner.split('\n').find((l) => l.startsWith('curl -sS -X POST'))!;
    const { stdout } = await exec('sh', ['-c', curl]);
    const created = JSON.parse(stdout) as { job_id: string; status: string; domains: string[] };
    expect(created.status).toBe('queued');

    const url = /curl -sS -X POST (\S+)\/v1\/jobs/.exec(curl)![1]!;
    const token = /Bearer (dm_jobs_\w+)/.exec(curl)![1]!;
    const get = async (path: string) =>
      (await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } })).json() as Promise<any>;
    await expect.poll(async () => (await get(`/v1/jobs/${created.job_id}`)).status, { timeout: 90_000, interval: 500 }).toBe('completed');
    const { results } = (await get(`/v1/jobs/${created.job_id}/results`)) as { results: Record<string, any>[] };
    expect(results).toHaveLength(created.domains.length * 6);
    const row = (domain: string, source: string) => results.find((r) => r.domain === domain && r.source === source)!;
    // Numbers from the fakes for a normal domain; the fault domains behave as the banner says.
    expect(row('example.com', 'seokicks')).toMatchObject({ status: 'ok', linkpop: expect.any(Number) });
    expect(row('example.com', 'moz')).toMatchObject({ status: 'ok', domain_authority: expect.any(Number) });
    expect(row('flaky.example.org', 'ahrefs_traffic')).toMatchObject({ status: 'ok', traffic_value: expect.any(Number) });
    expect(row('nodata.example.net', 'ahrefs_backlinks')).toMatchObject({ status: 'error', error: { code: 'upstream_no_data' } });

    // The walk-through ran beside it: the first job's cost per source, then the cache at 0. Its table ends with ping.
    const walkThrough = () => output().slice(Math.max(0, output().indexOf('Walk-through:')));
    await expect.poll(walkThrough, { timeout: 60_000, interval: 500 }).toMatch(/^Walk-through:[\s\S]*^ {2}ping +0/m);
    const walk = walkThrough();
    expect(walk).toMatch(/job \S+: completed in [\d.]+ s, 12 of 12 rows ok/);
    expect(walk).toContain('12 rows from cache, 0 to fetch');
    // Copies of the first job's rows, or of the curl job's where those are fresher (made after).
    const first = /job (\S+): completed/.exec(walk)![1]!;
    const copied = /answered completed at once;\n {4}12 of 12 rows with cached_from \(the job that fetched them\): (.+)$/m.exec(walk);
    expect(copied).not.toBeNull();
    for (const id of copied![1]!.split(', ')) expect([first, created.job_id]).toContain(id);
    const paid = /^ {2}ahrefs_backlinks +(\d+) ahrefs_units +0 ahrefs_units +0 ahrefs_units$/m.exec(walk);
    expect(Number(paid?.[1])).toBeGreaterThan(0);
    expect(walk).toMatch(/^ {2}seokicks +2 seokicks_credits +0 seokicks_credits +0 seokicks_credits$/m);

    child!.kill('SIGINT');
    expect(await exited).toBe(0);
    // The embedded database is stopped with it: nothing runs on the demo's data directory any more.
    const { stdout: ps } = await exec('ps', ['-eo', 'args']);
    expect(ps.split('\n').filter((l) => l.includes(dataDir!))).toEqual([]);
  });
});
