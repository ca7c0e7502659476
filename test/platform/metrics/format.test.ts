// The text /metrics serves is the Prometheus exposition format, line by line (test/helpers/prometheus.ts reads
// it strictly), and our metric names follow the conventions: domainkit_ prefix, _total counters, units in names.
// The reader itself is checked first: it must refuse what Prometheus would refuse.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { createLogger } from '../../../src/platform/log.ts';
import { startRoles, type Running } from '../../../src/roles.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { parseExposition } from '../../helpers/prometheus.ts';

const GOOD = `# HELP a_total A counter.
# TYPE a_total counter
a_total{x="1",y="q\\"uote\\\\"} 3
a_total{x="2"} 0
# HELP h_seconds A histogram.
# TYPE h_seconds histogram
h_seconds_bucket{le="0.1",k="v"} 1
h_seconds_bucket{le="1",k="v"} 2
h_seconds_bucket{le="+Inf",k="v"} 2
h_seconds_sum{k="v"} 0.6
h_seconds_count{k="v"} 2
# TYPE g gauge
g -1.5e3 1700000000000

`;

describe('the exposition reader', () => {
  it('reads a well-formed text', () => {
    const parsed = parseExposition(GOOD);
    expect(parsed.sum('a_total')).toBe(3);
    expect(parsed.sum('h_seconds_count', { k: 'v' })).toBe(2);
    expect(parsed.sum('g')).toBe(-1500);
    expect(parsed.families.get('a_total')?.samples[0]?.labels.y).toBe('q"uote\\');
  });

  it.each([
    ['a sample of no family', 'b 1\n'],
    ['an unknown type', '# TYPE a wrong\na 1\n'],
    ['two TYPE lines', '# TYPE a gauge\n# TYPE a gauge\na 1\n'],
    ['a bad value', '# TYPE a gauge\na one\n'],
    ['a missing value', '# TYPE a gauge\na{x="1"}\n'],
    ['an unquoted label', '# TYPE a gauge\na{x=1} 1\n'],
    ['a bad escape', '# TYPE a gauge\na{x="\\t"} 1\n'],
    ['a repeated label', '# TYPE a gauge\na{x="1",x="2"} 1\n'],
    ['a repeated series', '# TYPE a gauge\na{x="1"} 1\na{x="1"} 2\n'],
    ['interleaved families', '# TYPE a gauge\n# TYPE b gauge\nb 1\na 1\n'],
    ['a negative counter', '# TYPE a_total counter\na_total -1\n'],
    ['no final line feed', '# TYPE a gauge\na 1'],
    ['le outside a histogram', '# TYPE a gauge\na{le="1"} 1\n'],
    ['buckets not cumulative', '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n'],
    ['no +Inf bucket', '# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n'],
    ['_count unlike +Inf', '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 1\n'],
    ['no _sum', '# TYPE h histogram\nh_bucket{le="+Inf"} 1\nh_count 1\n'],
    ['descending le', '# TYPE h histogram\nh_bucket{le="2"} 1\nh_bucket{le="1"} 1\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n'],
  ])('refuses %s', (_why, text) => {
    expect(() => parseExposition(text)).toThrow();
  });
});

describe('/metrics of a process running both APIs', () => {
  let db: TestDatabase;
  let running: Running;
  let jobs: { url: string };
  let mail: { url: string };

  beforeAll(async () => {
    db = await createTestDatabase();
    const config = loadConfig({ DATABASE_URL: db.url, HOST: '127.0.0.1', JOBS_PORT: '0', MAIL_PORT: '0', LOG_LEVEL: 'silent' });
    running = await startRoles(config, createLogger({ level: 'silent' }), ['jobs-api', 'mail-api']);
    jobs = { url: running.addresses['jobs-api']! };
    mail = { url: running.addresses['mail-api']! };
  });
  afterAll(async () => {
    await running?.stop();
    await db?.pool.end();
  });

  it('parses strictly, and names every metric by the conventions', async () => {
    await fetch(`${jobs.url}/no/such/path`);
    const text = await (await fetch(`${mail.url}/metrics`)).text();
    const parsed = parseExposition(text);
    const names = [...parsed.families.keys()];
    for (const name of names) {
      const family = parsed.families.get(name)!;
      expect(family.help, name).toBeTruthy();
      expect(name, "our metrics carry the prefix; Node's keep their standard names").toMatch(/^(domainkit_|process_|nodejs_)/);
      if (family.type === 'counter') expect(name).toMatch(/_total$/);
      if (family.type === 'histogram' && name.startsWith('domainkit_')) expect(name).toMatch(/_seconds$/);
    }
    for (const ours of [
      'domainkit_http_requests_total',
      'domainkit_smtp_sessions_total',
      'domainkit_smtp_replies_total',
      'domainkit_smtp_data_duration_seconds',
      'domainkit_messages_stored_total',
      'domainkit_sse_subscribers',
      'domainkit_mail_waiters',
      'domainkit_webhook_delivery_attempts_total',
      'domainkit_tasks_total',
      'domainkit_upstream_request_duration_seconds',
      'domainkit_queue_depth',
      'process_cpu_seconds_total',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(names).toContain(ours);
    }
    // Both apps are in this process: one registry, the same text on either listener.
    expect(parseExposition(await (await fetch(`${jobs.url}/metrics`)).text()).families.size).toBe(parsed.families.size);
    expect(parsed.has('domainkit_http_requests_total', { service: 'jobs', route: 'unmatched', status: '404' })).toBe(true);
  });
});
