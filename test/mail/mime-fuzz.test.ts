// The MIME corpus, mutated: byte flips, truncation, duplicated and garbled boundaries, broken encodings, huge
// header folding, deep multipart nesting. A seeded generator makes the same 120 messages on every run. Each
// is sent over SMTP and must be answered 250 (or 552 when a mutation made it too large), stored byte for byte,
// and every API read of it (list, message, raw, otp, links, stats) must answer without a 5xx.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useMail } from '../helpers/mail.ts';
import { SmtpClient } from '../helpers/smtp.ts';

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/mime/', import.meta.url));
const files = (readdirSync(CORPUS, { recursive: true, encoding: 'utf8' }) as string[]).filter((n) => n.endsWith('.eml')).sort();
const corpus = files.map((name) => readFileSync(`${CORPUS}${name}`));

/** mulberry32: a small seeded PRNG, so a failure names a seed and a case that can be run again. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

type Mutation = (message: Buffer, rand: () => number) => Buffer;
const int = (rand: () => number, n: number) => Math.floor(rand() * n);

const MUTATIONS: Record<string, Mutation> = {
  flipBytes: (m, rand) => {
    const out = Buffer.from(m);
    for (let i = 0; i < 1 + int(rand, 40); i++) out[int(rand, out.length)] = int(rand, 256);
    return out;
  },
  truncate: (m, rand) => m.subarray(0, int(rand, m.length)),
  duplicateBoundaries: (m) => Buffer.from(m.toString('latin1').replace(/^(--[^\r\n]+)$/gm, '$1\n$1\n$1'), 'latin1'),
  garbleBoundaries: (m, rand) =>
    Buffer.from(
      m.toString('latin1').replace(/boundary="?([^";\r\n]+)"?/gi, () => `boundary="${'-'.repeat(int(rand, 80))}\u00ff"`),
      'latin1',
    ),
  breakEncodings: (m) =>
    Buffer.from(
      m
        .toString('latin1')
        .replace(/base64/gi, 'base64')
        .replace(/^([A-Za-z0-9+/]{8})[A-Za-z0-9+/]{4}/gm, '$1!*%~')
        .replace(/=\?([^?]+)\?([BQ])\?/gi, '=?x-unknown-$1?$2?')
        .replace(/=([0-9A-F]{2})/g, '=$1=G'),
      'latin1',
    ),
  hugeFolding: (m) => Buffer.concat([Buffer.from(`Subject: ${Array.from({ length: 20_000 }, (_, i) => `w${i}`).join('\r\n ')}\r\n`), m]),
  deepNesting: (_m, rand) => {
    const depth = 100 + int(rand, 400);
    let body = 'Content-Type: text/plain\r\n\r\ncode 123456 https://example.org/deep\r\n';
    for (let i = depth; i > 0; i--) body = `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n${body}\r\n--b${i}--\r\n`;
    return Buffer.from(`From: deep@example.org\r\nSubject: depth ${depth}\r\nMIME-Version: 1.0\r\n${body}`);
  },
  nulsAndBareCr: (m, rand) =>
    Buffer.from(
      m.toString('latin1').replace(/\n/g, () => (rand() < 0.1 ? '\0\r' : '\n')),
      'latin1',
    ),
};

/** The bytes the server must hold: what was sent, ending in CRLF (the CRLF before the dot belongs to it). */
function delivered(content: Buffer): Buffer {
  const end = content.subarray(-2).toString('latin1');
  return end === '\r\n' ? content : Buffer.concat([content, Buffer.from('\r\n')]);
}

const SEED = 20_251_111;
const CASES = 120;
const names = Object.keys(MUTATIONS);
const rand = prng(SEED);
const cases = Array.from({ length: CASES }, (_, i) => {
  const mutation = names[i % names.length]!;
  const source = int(rand, corpus.length);
  return { name: `#${i} ${mutation}(${files[source]})`, content: MUTATIONS[mutation]!(corpus[source]!, rand) };
});

const t = useMail();

async function readsWell(address: string, name: string): Promise<void> {
  // Each body is read whole: an unread one keeps its connection busy, and closing the server would wait for it.
  const get = async (path: string) => {
    const res = await t.mail.call(path);
    return { status: res.status, json: () => res.json(), body: await res.clone().arrayBuffer() };
  };
  const list = await get(`/api/v1/inboxes/${address}/messages`);
  expect(list.status, `${name}: list`).toBe(200);
  for (const { id } of (await list.json()) as { id: string }[]) {
    for (const path of ['', '/otp', '/links']) expect((await get(`/api/v1/messages/${id}${path}`)).status, `${name}: ${path}`).toBe(200);
  }
  expect((await get(`/api/v1/inboxes/${address}/stats`)).status, `${name}: stats`).toBe(200);
}

describe('mutated MIME corpus over SMTP', () => {
  it(`${CASES} mutations (seed ${SEED}) of ${files.length} corpus messages: 250 or 552, stored byte for byte, every read below 500`, async () => {
    expect(files.length).toBeGreaterThan(50);
    const outcomes = new Map<number, number>();
    // Four connections at once: the cases are independent, and this keeps the file well under a minute.
    const queue = [...cases];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        const client = await SmtpClient.connect(t.mail.smtpPort);
        for (let c = queue.shift(); c; c = queue.shift()) {
          const to = await t.mail.inbox();
          const reply = await client.send({ from: 'fuzz@example.org', to: [to] }, c.content);
          outcomes.set(reply.code, (outcomes.get(reply.code) ?? 0) + 1);
          expect([250, 552], `${c.name}: ${reply.text}`).toContain(reply.code);
          if (reply.code === 250) {
            const [message] = (await (await t.mail.call(`/api/v1/inboxes/${to}/messages`)).json()) as { id: string }[];
            const raw = Buffer.from(await (await t.mail.call(`/api/v1/messages/${message!.id}/raw`)).arrayBuffer());
            expect(raw.equals(delivered(c.content)), `${c.name}: raw bytes`).toBe(true);
          }
          await readsWell(to, c.name);
        }
        await client.quit();
      }),
    );
    expect(outcomes.get(250)).toBeGreaterThan(CASES * 0.9);
  }, 90_000);
});
