// Issue 25's property: for every generated message (link-messages.ts), the links found are exactly those it holds,
// in order, each a URL `new URL()` parses and that is written in the message, each anchor with its text. Messages
// go through the real path: mailparser (smtp/parse.ts) and extraction as the receiver runs them; a smaller run
// goes end to end, over SMTP and through the API, where /links, the message's links and the list's link_count
// must agree.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extract } from '../../../src/mail/extract/index.ts';
import { parseMessage } from '../../../src/mail/smtp/index.ts';
import { useMail } from '../../helpers/mail.ts';
import { SmtpClient } from '../../helpers/smtp.ts';
import { type GeneratedMessage, message } from './link-messages.ts';

/** What the receiver stores for these bytes: its links. */
async function linksOf(raw: Buffer) {
  const { plainText, ...parsed } = await parseMessage(raw);
  return extract({ subject: parsed.subject, text: parsed.bodyText, html: parsed.bodyHtml, plainText, headers: parsed.headers }).links;
}

function holds(found: { url: string; text: string | null }[], m: GeneratedMessage): void {
  expect(found.map((l) => ({ url: l.url, text: l.text }))).toEqual(m.expected);
  for (const link of found) {
    expect(new URL(link.url).href).toBe(link.url);
    expect(m.written.includes(link.url), `${link.url} is written in the message`).toBe(true);
  }
}

describe('links of generated messages', () => {
  it('are exactly the links each message holds, through the MIME parser and extraction', async () => {
    await fc.assert(
      fc.asyncProperty(message, async (m) => {
        holds(await linksOf(Buffer.from(m.source)), m);
      }),
      { numRuns: 400 },
    );
  }, 120_000);

  it('covers every layout, and messages with images, entities and punctuated text', () => {
    const sample = fc.sample(message, { numRuns: 300, seed: 19 });
    expect(new Set(sample.map((m) => m.layout)).size).toBe(6);
    expect(sample.some((m) => m.written.includes('<img') && m.expected.length > 0)).toBe(true);
    expect(sample.some((m) => m.expected.some((l) => l.text === null))).toBe(true);
  });
});

describe('links of generated messages, end to end', () => {
  const t = useMail();

  it('/links, the message and the list agree with what the message holds', async () => {
    const client = await SmtpClient.connect(t.mail.smtpPort);
    try {
      await fc.assert(
        fc.asyncProperty(message, async (m) => {
          const address = await t.mail.inbox();
          const reply = await client.send({ from: 'noreply@shop.example', to: [address] }, Buffer.from(m.source));
          expect(reply.code).toBe(250);
          const [summary] = (await (await t.mail.call(`/api/v1/inboxes/${address}/messages`)).json()) as {
            id: string;
            link_count: number;
          }[];
          const links = (await (await t.mail.call(`/api/v1/messages/${summary!.id}/links`)).json()) as {
            count: number;
            links: { index: number; url: string; text: string | null; kind: string }[];
          };
          holds(links.links, m);
          expect(links.links.map((l) => l.index)).toEqual(links.links.map((_, k) => k));
          expect(links.count).toBe(m.expected.length);
          expect(summary!.link_count).toBe(m.expected.length);
          const full = (await (await t.mail.call(`/api/v1/messages/${summary!.id}`)).json()) as { links: unknown[]; link_count: number };
          expect(full.links).toEqual(links.links);
          expect(full.link_count).toBe(m.expected.length);
        }),
        { numRuns: 25 },
      );
    } finally {
      await client.quit();
    }
  }, 120_000);
});
