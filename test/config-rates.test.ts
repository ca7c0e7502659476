// The rate limit settings: the profiles' defaults, a limit's text, and the Developer tier never below anonymous.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

describe('rate limit settings', () => {
  it('mvp (the default): no mail limit; the jobs API limited per tenant, key and creation', () => {
    const { rateLimits } = loadConfig({});
    expect(rateLimits.profile).toBe('mvp');
    expect(rateLimits.mail).toEqual({ anonymous: undefined, anonymousCreate: undefined, developer: undefined, developerCreate: undefined });
    expect(rateLimits.jobs).toEqual({
      tenant: { points: 12_000, seconds: 60 },
      key: { points: 6000, seconds: 60 },
      create: { points: 600, seconds: 60 },
    });
  });

  it('production turns the mail limits on, Developer higher; each setting overrides either profile', () => {
    const { mail } = loadConfig({ RATE_LIMIT_PROFILE: 'production' }).rateLimits;
    expect(mail).toEqual({
      anonymous: { points: 600, seconds: 60 },
      anonymousCreate: { points: 30, seconds: 600 },
      developer: { points: 6000, seconds: 60 },
      developerCreate: { points: 600, seconds: 600 },
    });
    const set = loadConfig({
      RATE_LIMIT_PROFILE: 'production',
      MAIL_RATE_LIMIT_ANONYMOUS: 'off',
      JOBS_RATE_LIMIT_KEY: '100/10s',
    }).rateLimits;
    expect(set.mail.anonymous).toBeUndefined();
    expect(set.jobs.key).toEqual({ points: 100, seconds: 10 });
    expect(loadConfig({ MAIL_RATE_LIMIT_ANONYMOUS_CREATE: '5/h' }).rateLimits.mail.anonymousCreate).toEqual({ points: 5, seconds: 3600 });
    expect(loadConfig({ JOBS_RATE_LIMIT_TENANT: '0' }).rateLimits.jobs.tenant).toBeUndefined();
  });

  it.each([
    ['JOBS_RATE_LIMIT_KEY', '100'],
    ['JOBS_RATE_LIMIT_TENANT', '100/1w'],
    ['JOBS_RATE_LIMIT_KEY', '0/1m'],
    ['JOBS_RATE_LIMIT_KEY', '10/2d'],
    ['RATE_LIMIT_PROFILE', 'prod'],
  ])('%s=%s is refused with a line naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^invalid setting ${name}[=:]`));
  });

  it('refuses a Developer limit below the anonymous one (the mail API promises it higher)', () => {
    expect(() => loadConfig({ RATE_LIMIT_PROFILE: 'production', MAIL_RATE_LIMIT_DEVELOPER: '100/1m' })).toThrow(
      /^invalid setting MAIL_RATE_LIMIT_DEVELOPER: the Developer tier must not be limited below anonymous/,
    );
    expect(() => loadConfig({ MAIL_RATE_LIMIT_ANONYMOUS_CREATE: '10/1m', MAIL_RATE_LIMIT_DEVELOPER_CREATE: '10/2m' })).toThrow(
      /MAIL_RATE_LIMIT_DEVELOPER_CREATE/,
    );
  });
});
