// Replay-safe webhooks, checked by a verifier nobody here wrote: the reference `standardwebhooks` package
// (standard-webhooks/standard-webhooks, libraries/javascript). Real deliveries of both services (a job's
// callback, a mail webhook, each with a retried attempt) reach a receiver on a real socket; every one must pass
// the verifier with the secret handed out at creation, as docs/webhooks.md tells receivers to construct it.
// A captured delivery re-sent later than the 5-minute window, or with its body, id or timestamp changed, must
// not. The documented body-only `X-…-Signature` headers stay as they were.
import { createHmac } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bearer, JWT_SECRET, tokenOf } from '../helpers/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { client, startJobsApi, tokenFor, type JobsApi } from '../helpers/jobs.ts';
import { DOMAIN, startMail, type Mail } from '../helpers/mail.ts';
import { scripted, startReceiver, type Receiver } from '../helpers/receiver.ts';

const FIVE_MINUTES = 5 * 60_000;
let db: TestDatabase;
let mail: Mail;
let jobsApi: JobsApi;
let receiver: Receiver;

beforeAll(async () => {
  db = await createTestDatabase();
  receiver = await startReceiver(scripted);
  // The mail process carries the worker role, which sends the deliveries of both services; the receiver is on
  // loopback, hence private networks.
  const delays = { JOBS_WEBHOOK_RETRY_DELAYS: '200ms,200ms,200ms', MAIL_WEBHOOK_RETRY_DELAYS: '200ms,200ms,200ms' };
  mail = await startMail(db, { worker: true, env: { MAIL_JWT_SECRET: JWT_SECRET, ALLOW_PRIVATE_NETWORK: 'true', ...delays } });
  jobsApi = await startJobsApi(db, { env: { ALLOW_PRIVATE_NETWORK: 'true' } });
});
afterAll(async () => {
  await jobsApi?.close();
  await mail?.close();
  await receiver?.close();
  await db?.pool.end();
});

interface Request {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The verifier as docs/webhooks.md says to build it: our secret's characters, base64-encoded, as its key. */
const verifierFor = (secret: string) => new Webhook(Buffer.from(secret, 'utf8').toString('base64'));

const standard = (r: Request) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

/** 'ok', or the verifier's reason to refuse; with `nowMs`, as the verifier would answer at that time. */
function verdict(secret: string, r: Request, nowMs?: number, verifier = verifierFor(secret)): string {
  const run = () => {
    try {
      verifier.verify(r.body, standard(r));
      return 'ok';
    } catch (err) {
      if (err instanceof WebhookVerificationError) return err.message;
      throw err;
    }
  };
  if (nowMs === undefined) return run();
  // Only Date is moved, and only while the synchronous check runs: nothing else in this process sees it.
  vi.useFakeTimers({ toFake: ['Date'], now: nowMs });
  try {
    return run();
  } finally {
    vi.useRealTimers();
  }
}

/** Sends a captured request again, as an attacker who recorded it would, to the receiver's `path`. */
async function resend(path: string, r: Request, change: { body?: Buffer; headers?: Record<string, string> } = {}): Promise<Request> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(r.headers)) {
    if (name.startsWith('webhook-') || name.startsWith('x-') || name === 'content-type') headers[name] = String(value);
  }
  const res = await fetch(`${receiver.url}${path}`, {
    method: 'POST',
    headers: { ...headers, ...change.headers },
    body: change.body ?? r.body,
  });
  expect(res.status).toBe(200);
  const got = receiver.forPath(path);
  return got[got.length - 1]!;
}

type Sample = (rawBody: Buffer, headers: IncomingHttpHeaders, secret: string, nowMs?: number) => unknown;

/** The code samples of docs/webhooks.md, as a receiver would copy them, loaded from a scratch folder. */
async function docSamples(): Promise<{ withPackage: Sample; withoutPackage: Sample }> {
  const doc = await readFile(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
  const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const source = (name: string) => {
    const block = blocks.find((b) => b.includes(`export function ${name}(`));
    if (!block) throw new Error(`docs/webhooks.md has no sample ${name}`);
    // Outside the repository a bare name would not resolve; the package is the one installed here.
    return block.replace("from 'standardwebhooks'", `from '${import.meta.resolve('standardwebhooks')}'`);
  };
  const dir = await mkdtemp(join(tmpdir(), 'domainkit-webhook-samples-'));
  try {
    await writeFile(join(dir, 'with.ts'), source('verifyWithPackage'));
    await writeFile(join(dir, 'without.ts'), source('verifyWithoutPackage'));
    const withPackage = ((await import(pathToFileURL(join(dir, 'with.ts')).href)) as { verifyWithPackage: Sample }).verifyWithPackage;
    const without = (await import(pathToFileURL(join(dir, 'without.ts')).href)) as { verifyWithoutPackage: Sample };
    return { withPackage, withoutPackage: without.verifyWithoutPackage };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const bodySignature = (secret: string, body: Buffer) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

async function mailDelivery(path: string): Promise<{ secret: string; requests: Request[] }> {
  const res = await mail.call('/api/v1/inboxes', {
    body: { domain: DOMAIN, label: 'replay', webhook_url: `${receiver.url}${path}` },
    headers: bearer(await tokenOf('acct-replay', 3)),
  });
  expect(res.status).toBe(201);
  const inbox = (await res.json()) as { address: string; webhook_secret: string };
  await mail.send({ from: 'shop@sender.test', to: inbox.address, subject: 'Ihr Code für Sie ✓', text: 'Your code is 482913.' });
  return { secret: inbox.webhook_secret, requests: await receiver.waitFor(path, 2) };
}

async function jobCallback(path: string): Promise<{ secret: string; requests: Request[] }> {
  const call = client(jobsApi.url, await tokenFor(db, 'replay'));
  // seokicks without credentials ends the job at once (failed, source_not_configured): a callback, no network.
  const res = await call('/v1/jobs', { body: { domains: ['a.example'], job_types: ['seokicks'], webhook_url: `${receiver.url}${path}` } });
  expect(res.status).toBe(201);
  const job = (await res.json()) as { webhook_secret: string };
  return { secret: job.webhook_secret, requests: await receiver.waitFor(path, 2) };
}

describe.each([
  { service: 'mail', prefix: 'x-mail', deliver: mailDelivery },
  { service: 'jobs', prefix: 'x-metrics', deliver: jobCallback },
])('Standard Webhooks on $service deliveries', ({ service, prefix, deliver }) => {
  let secret: string;
  let requests: Request[];
  beforeAll(async () => {
    // A 5xx first: the retried attempt must verify too, under a timestamp of its own.
    ({ secret, requests } = await deliver(`/seq/500,200/${service}`));
  });

  it('every attempt passes the reference verifier, beside the unchanged body-only signature', () => {
    expect(requests).toHaveLength(2);
    // Non-ASCII bytes are signed as they are (the mail's subject), not as some re-encoding of them.
    if (service === 'mail') expect(requests[0]!.body.toString('utf8')).toContain('für Sie ✓');
    for (const r of requests) {
      expect(verdict(secret, r)).toBe('ok');
      // The same key bytes given raw, or as a `whsec_` secret, as the documents also say.
      expect(verdict(secret, r, undefined, new Webhook(secret, { format: 'raw' }))).toBe('ok');
      expect(verdict(secret, r, undefined, new Webhook(`whsec_${Buffer.from(secret).toString('base64')}`))).toBe('ok');
      expect(r.headers['webhook-id']).toBe(r.headers[`${prefix}-delivery`]);
      expect(r.headers['webhook-timestamp']).toMatch(/^[1-9]\d{9}$/);
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(r.headers[`${prefix}-signature`]).toBe(bodySignature(secret, r.body));
    }
    // One delivery: the id is stable across its attempts, the bytes too.
    expect(requests.map((r) => r.headers[`${prefix}-attempt`])).toEqual(['1', '2']);
    expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(requests[0]!.body.equals(requests[1]!.body)).toBe(true);
    expect(Number(requests[1]!.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(Number(requests[0]!.headers['webhook-timestamp']));
  });

  it('a captured delivery re-sent after the 5-minute window is refused; within it only the id tells', async () => {
    const captured = requests[1]!;
    const replayed = await resend(`/seq/200/${service}-replay`, captured);
    const sentAt = Number(captured.headers['webhook-timestamp']) * 1000;
    // Inside the window the signature still holds: receivers de-duplicate on webhook-id, as documented.
    expect(verdict(secret, replayed, sentAt + FIVE_MINUTES - 1000)).toBe('ok');
    expect(verdict(secret, replayed, sentAt + FIVE_MINUTES + 1000)).toBe('Message timestamp too old');
    expect(verdict(secret, replayed, sentAt + 24 * 60 * FIVE_MINUTES)).toBe('Message timestamp too old');
    // A clock far behind the sender's is refused the same way.
    expect(verdict(secret, replayed, sentAt - FIVE_MINUTES - 1000)).toBe('Message timestamp too new');
  });

  it('the samples of docs/webhooks.md accept these deliveries and refuse a late replay and a changed body', async () => {
    const { withPackage, withoutPackage } = await docSamples();
    const captured = requests[1]!;
    for (const r of requests) {
      expect(withPackage(r.body, r.headers, secret)).toEqual(JSON.parse(r.body.toString('utf8')));
      expect(withoutPackage(r.body, r.headers, secret)).toBe(true);
    }
    const sentAt = Number(captured.headers['webhook-timestamp']) * 1000;
    expect(withoutPackage(captured.body, captured.headers, secret, sentAt + FIVE_MINUTES - 1000)).toBe(true);
    expect(withoutPackage(captured.body, captured.headers, secret, sentAt + FIVE_MINUTES + 1000)).toBe(false);
    const changed = Buffer.concat([captured.body.subarray(0, -1), Buffer.from(',"x":1}')]);
    expect(withoutPackage(changed, captured.headers, secret)).toBe(false);
    expect(() => withPackage(changed, captured.headers, secret)).toThrow(WebhookVerificationError);
    expect(withoutPackage(captured.body, { ...captured.headers, 'webhook-signature': undefined }, secret)).toBe(false);
  });

  it('a changed body, a freshened timestamp, another id or another secret is refused', async () => {
    const captured = requests[1]!;
    const path = `/seq/200/${service}-forged`;
    // Another code in the mail, another outcome of the job.
    const body = Buffer.from(captured.body.toString('utf8').replace('482913', '000000').replace('"failed"', '"completed"'));
    expect(body.equals(captured.body)).toBe(false);
    const changed = await resend(path, captured, { body });
    expect(verdict(secret, changed)).toBe('No matching signature found');
    // The attacker cannot move the timestamp into the window: it is signed.
    const fresh = await resend(path, captured, { headers: { 'webhook-timestamp': String(Math.floor(Date.now() / 1000) + 1) } });
    expect(verdict(secret, fresh)).toBe('No matching signature found');
    // Nor pass the delivery off as a new one, to get past de-duplication.
    const renamed = await resend(path, captured, { headers: { 'webhook-id': '018f0000-0000-7000-8000-000000000000' } });
    expect(verdict(secret, renamed)).toBe('No matching signature found');
    const untouched = await resend(path, captured);
    expect(verdict(secret, untouched)).toBe('ok');
    expect(verdict('0'.repeat(secret.length), untouched)).toBe('No matching signature found');
  });
});
