// Settings: defaults that make `npm start` work offline, and a one-line failure naming any bad setting.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadDotEnv } from '../src/config.ts';
import { runCli } from './helpers/cli.ts';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c.databaseUrl).toBeUndefined();
    expect(c.dataDir).toBe(join(process.cwd(), '.data'));
    expect(c.host).toBe('0.0.0.0');
    expect([c.jobs.port, c.mail.port, c.mail.smtpPort]).toEqual([8080, 8081, 2525]);
    expect(c.jobs.publicUrl).toBe('http://localhost:8080');
    expect(c.mail.publicUrl).toBe('http://localhost:8081');
    expect(c.allowPrivateNetwork).toBe(false);
    expect(c.jobs.webhookRetryDelaysMs).toEqual([5_000, 30_000, 300_000]);
    expect(c.mail.webhookRetryDelaysMs).toEqual([5_000, 25_000, 125_000]);
    expect(c.jobs.maxDomains).toBe(1000);
    expect(c.mail.domains).toEqual(['inbox.localhost']);
    expect([c.mail.anonTtlSeconds, c.mail.maxMessageBytes, c.mail.ssePingSeconds]).toEqual([3600, 10_485_760, 15]);
    expect(c.jobs.sourceSettings).toEqual({
      seokicks: { apiKey: undefined, baseUrl: 'https://en.seokicks.de' },
      moz: { token: undefined, accessId: undefined, secretKey: undefined, baseUrl: 'https://lsapi.seomoz.com' },
      ahrefs_backlinks: { apiKey: undefined, baseUrl: 'https://api.ahrefs.com/v3' },
      ahrefs_traffic: { apiKey: undefined, baseUrl: 'https://api.ahrefs.com/v3' },
      wayback: { baseUrl: 'https://web.archive.org' },
      ping: undefined,
    });
    expect(c.jobs.sources.ping).toEqual({ concurrency: 50, rate: 0 });
    expect(c.jobs.sources.moz).toEqual({ concurrency: 1, rate: 0.1 });
    expect(c.jobs.sources.wayback).toEqual({ concurrency: 1, rate: 0.4 });
    expect(c.metrics).toEqual({ allow: { mode: 'listed', private: true, ranges: [] }, port: undefined });
  });

  it('reads every kind of value', () => {
    const c = loadConfig({
      JOBS_PORT: '9000',
      JOBS_PUBLIC_URL: 'https://jobs.example.com/',
      ALLOW_PRIVATE_NETWORK: 'true',
      JOBS_WEBHOOK_RETRY_DELAYS: '100ms,1s,2m,1h',
      MAIL_DOMAINS: ' Mail.Example.com., b.example.org ,mail.example.com',
      JOBS_AHREFS_BACKLINKS_RATE: '2.5',
      JOBS_PING_CONCURRENCY: '7',
      MOZ_ACCESS_ID: 'id',
      MOZ_SECRET_KEY: 'key',
      DATABASE_URL: 'postgres://u:p@db:5432/x',
      JOBS_MAX_DOMAINS: '',
    });
    expect(c.jobs.port).toBe(9000);
    expect(c.jobs.publicUrl).toBe('https://jobs.example.com');
    expect(c.mail.publicUrl).toBe('http://localhost:8081');
    expect(c.allowPrivateNetwork).toBe(true);
    expect(c.jobs.webhookRetryDelaysMs).toEqual([100, 1000, 120_000, 3_600_000]);
    expect(c.mail.domains).toEqual(['mail.example.com', 'b.example.org']);
    expect(c.jobs.sources.ahrefs_backlinks?.rate).toBe(2.5);
    expect(c.jobs.sources.ping?.concurrency).toBe(7);
    expect(c.jobs.maxDomains).toBe(1000);
    expect(c.databaseUrl).toBe('postgres://u:p@db:5432/x');
  });

  it.each([
    ['JOBS_PORT', 'abc'],
    ['MAIL_PORT', '70000'],
    ['SMTP_PORT', '-1'],
    ['ALLOW_PRIVATE_NETWORK', 'maybe'],
    ['JOBS_WEBHOOK_RETRY_DELAYS', '5s,soon'],
    ['MAIL_WEBHOOK_RETRY_DELAYS', '5'],
    ['JOBS_MAX_DOMAINS', '0'],
    ['MAIL_DOMAINS', 'not a domain'],
    ['MAIL_ANON_TTL_SECONDS', '1.5'],
    ['MAIL_ANON_TTL_SECONDS', '0'],
    ['JOBS_PUBLIC_URL', 'ftp://x'],
    ['JOBS_PUBLIC_URL', 'http://x/?q=1'],
    ['SEOKICKS_BASE_URL', 'not a url'],
    ['DATABASE_URL', 'mysql://x'],
    ['JOBS_MOZ_RATE', 'fast'],
    ['JOBS_WAYBACK_CONCURRENCY', '0'],
    ['MAIL_JWT_SECRET', 'short'],
    ['LOG_LEVEL', 'loud'],
    ['METRICS_ALLOW', 'everyone'],
    ['METRICS_ALLOW', '10.0.0.0/33'],
    ['METRICS_ALLOW', 'private,none'],
    ['METRICS_PORT', '99999'],
  ])('%s=%j is refused with an error naming it', (name, value) => {
    const attempt = () => loadConfig({ [name]: value });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(new RegExp(`^invalid setting ${name}`));
    try {
      attempt();
    } catch (err) {
      expect((err as Error).message).not.toContain('\n');
      expect((err as ConfigError).setting).toBe(name);
    }
  });

  it('MAIL_ANON_TTL_SECONDS takes any positive number of seconds, for short-lived test deployments', () => {
    for (const ttl of [1, 2, 59, 60, 31_536_000]) expect(loadConfig({ MAIL_ANON_TTL_SECONDS: String(ttl) }).mail.anonTtlSeconds).toBe(ttl);
  });

  it('METRICS_ALLOW takes private, all, none or CIDRs; METRICS_PORT a port (unset: no metrics listener)', () => {
    expect(loadConfig({ METRICS_ALLOW: 'all' }).metrics.allow).toEqual({ mode: 'all' });
    expect(loadConfig({ METRICS_ALLOW: 'None' }).metrics.allow).toEqual({ mode: 'none' });
    const listed = loadConfig({ METRICS_ALLOW: '10.0.0.0/8, private, fd00::/8' }).metrics.allow;
    expect(listed).toMatchObject({ mode: 'listed', private: true });
    expect(listed.mode === 'listed' && listed.ranges.map(([net, bits]) => `${net.toString()}/${bits}`)).toEqual(['10.0.0.0/8', 'fd00::/8']);
    expect(loadConfig({ METRICS_PORT: '9464' }).metrics.port).toBe(9464);
    expect(loadConfig({ METRICS_PORT: '0' }).metrics.port).toBe(0);
  });

  it('never echoes the value of a secret setting', () => {
    expect(() => loadConfig({ MAIL_JWT_SECRET: 'hunter2' })).toThrow(/^invalid setting MAIL_JWT_SECRET: /);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://u:hunter2@x' })).not.toThrow(/hunter2/);
  });

  it('refuses settings that only make sense together when one is missing', () => {
    expect(() => loadConfig({ MOZ_ACCESS_ID: 'id' })).toThrow(/MOZ_SECRET_KEY/);
    expect(() => loadConfig({ MAIL_JWT_SECRET: 'x'.repeat(32), MAIL_JWKS_URL: 'https://id.example.com/jwks' })).toThrow(/MAIL_JWKS_URL/);
  });
});

describe('.env', () => {
  it('fills unset settings without overriding the environment', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dotenv-'));
    const file = join(dir, '.env');
    await writeFile(file, 'JOBS_PORT=9001\nMAIL_PORT=9002\n# comment\nHOST="127.0.0.1"\n');
    const env: Record<string, string | undefined> = { MAIL_PORT: '7000' };
    loadDotEnv(env, file);
    expect(loadConfig(env).jobs.port).toBe(9001);
    expect(loadConfig(env).mail.port).toBe(7000);
    expect(loadConfig(env).host).toBe('127.0.0.1');
  });
});

describe('the program', () => {
  it('stops at once with one line naming a bad setting', async () => {
    const result = await runCli(['start'], { JOBS_PORT: 'abc', DATA_DIR: join(tmpdir(), 'never-created') });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('domainkit: invalid setting JOBS_PORT="abc": expected an integer from 0 to 65535\n');
  });
});
