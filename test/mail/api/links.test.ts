// Issue 25 through SMTP and the API: an HTML-only message whose images the parser writes as `[src]` in the text
// it makes, and a text part whose URL is followed by `)` and Japanese; and messages stored before the fix (by
// the old extractor, links_version 0) answering the corrected links on every read, the list's link_count with them.
import { describe, expect, it } from 'vitest';
import { LINKS_VERSION } from '../../../src/mail/extract/index.ts';
import { parseMessage } from '../../../src/mail/smtp/index.ts';
import { insertMessages } from '../../../src/mail/store/index.ts';
import { useMail } from '../../helpers/mail.ts';
import { SmtpClient } from '../../helpers/smtp.ts';

const t = useMail();

const HTML_ONLY = [
  'From: Shop <noreply@shop.example>',
  'Subject: Get our app',
  'MIME-Version: 1.0',
  'Content-Type: text/html; charset=utf-8',
  '',
  '<p>Hello!</p><a href="https://shop.example/app"><img src="https://cdn.example/badge.png" alt="Get the app"></a>',
  '<p><img src="https://cdn.example/banner.png" alt="Summer sale"></p>',
  '<a href="https://social.example/shop"><img src="https://cdn.example/icon.png"></a>',
  '',
].join('\r\n');

const JAPANESE_TEXT = [
  'From: Shop <noreply@shop.example>',
  'Subject: =?UTF-8?B?6YWN5L+h5YGc5q2i?=',
  'MIME-Version: 1.0',
  'Content-Type: text/plain; charset=utf-8',
  'Content-Transfer-Encoding: 8bit',
  '',
  'こちら (https://shop.example/stop?mid=abc)から配信停止できます。',
  '中文：请点击 (https://shop.example/cn?mid=abc)。',
  '한국어: 여기 (https://shop.example/ko?mid=abc)를 클릭하세요.',
  '',
].join('\r\n');

interface LinksAnswer {
  count: number;
  links: { index: number; url: string; text: string | null; kind: string }[];
}

async function deliver(raw: string): Promise<{ address: string; id: string }> {
  const address = await t.mail.inbox();
  const client = await SmtpClient.connect(t.mail.smtpPort);
  try {
    expect((await client.send({ from: 'noreply@shop.example', to: [address] }, Buffer.from(raw))).code).toBe(250);
  } finally {
    await client.quit();
  }
  const [message] = (await (await t.mail.call(`/api/v1/inboxes/${address}/messages`)).json()) as { id: string }[];
  return { address, id: message!.id };
}

const linksOf = async (id: string) => (await (await t.mail.call(`/api/v1/messages/${id}/links`)).json()) as LinksAnswer;
const listCount = async (address: string) =>
  ((await (await t.mail.call(`/api/v1/inboxes/${address}/messages`)).json()) as { link_count: number }[]).map((m) => m.link_count);

describe('issue 25 through SMTP and the API', () => {
  it('an HTML-only message with image anchors has its anchors as links, no image URL, nothing glued', async () => {
    const { address, id } = await deliver(HTML_ONLY);
    const full = (await (await t.mail.call(`/api/v1/messages/${id}`)).json()) as {
      body_text: string;
      links: unknown[];
      link_count: number;
    };
    // The parser's text still shows the images as [src] (for reading); it is no source of links.
    expect(full.body_text).toContain('[https://cdn.example/badge.png]');
    const expected = [
      { index: 0, url: 'https://shop.example/app', text: 'Get the app', kind: 'other' },
      { index: 1, url: 'https://social.example/shop', text: null, kind: 'other' },
    ];
    expect((await linksOf(id)).links).toEqual(expected);
    expect(full.links).toEqual(expected);
    expect(full.link_count).toBe(2);
    expect(await listCount(address)).toEqual([2]);
  });

  it('a URL in Japanese, Chinese or Korean text ends before the bracket and the words after it', async () => {
    const { address, id } = await deliver(JAPANESE_TEXT);
    expect((await linksOf(id)).links).toEqual([
      { index: 0, url: 'https://shop.example/stop?mid=abc', text: null, kind: 'unsubscribe' },
      { index: 1, url: 'https://shop.example/cn?mid=abc', text: null, kind: 'other' },
      { index: 2, url: 'https://shop.example/ko?mid=abc', text: null, kind: 'other' },
    ]);
    expect(await listCount(address)).toEqual([3]);
  });
});

describe('a message stored before the fix', () => {
  /** Stores `raw` in a fresh inbox as the old extractor did: its links as given, links_version 0. */
  async function storedByOldCode(raw: string, links: { index: number; url: string }[] | null): Promise<{ address: string; id: string }> {
    const address = await t.mail.inbox();
    const { rows } = await t.db.pool.query<{ id: string }>('SELECT id FROM inboxes WHERE address = $1', [address]);
    const { plainText: _, ...parsed } = await parseMessage(Buffer.from(raw));
    const id = crypto.randomUUID();
    await insertMessages(t.db.pool, [
      {
        id,
        inboxId: rows[0]!.id,
        envelopeFrom: 'noreply@shop.example',
        toAddress: address,
        ...parsed,
        otp: null,
        otpVersion: 3,
        links: (links ?? []) as never,
        linksVersion: 0,
        raw: Buffer.from(raw),
        tag: null,
      },
    ]);
    if (links === null) await t.db.pool.query('UPDATE messages SET links = NULL WHERE id = $1', [id]);
    return { address, id };
  }

  const stored = async (id: string) =>
    (await t.db.pool.query('SELECT link_count, links_version FROM messages WHERE id = $1', [id])).rows[0] as {
      link_count: number;
      links_version: number;
    };

  const OLD_HTML_LINKS = [
    { index: 0, url: 'https://shop.example/app' },
    { index: 1, url: 'https://cdn.example/badge.png]https://shop.example/app' },
    { index: 2, url: 'https://cdn.example/banner.png' },
    { index: 3, url: 'https://social.example/shop' },
    { index: 4, url: 'https://cdn.example/icon.png' },
  ];

  it('answers the corrected links in the list first, then in /links and the message, and stores them once', async () => {
    const { address, id } = await storedByOldCode(HTML_ONLY, OLD_HTML_LINKS);
    expect(await stored(id)).toEqual({ link_count: 5, links_version: 0 });

    expect(await listCount(address)).toEqual([2]);
    expect(await stored(id)).toEqual({ link_count: 2, links_version: LINKS_VERSION });
    const links = await linksOf(id);
    expect(links.links.map((l) => l.url)).toEqual(['https://shop.example/app', 'https://social.example/shop']);
    const full = (await (await t.mail.call(`/api/v1/messages/${id}`)).json()) as { links: unknown[]; link_count: number };
    expect(full.links).toEqual(links.links);
    expect(full.link_count).toBe(2);
  });

  it('answers the corrected links when the message itself is read first, and the list agrees', async () => {
    const { address, id } = await storedByOldCode(JAPANESE_TEXT, [
      { index: 0, url: 'https://shop.example/stop?mid=abc)%E3%81%8B%E3%82%89%E9%85%8D%E4%BF%A1%E5%81%9C%E6%AD%A2' },
    ]);
    const full = (await (await t.mail.call(`/api/v1/messages/${id}`)).json()) as { links: { url: string }[]; link_count: number };
    expect(full.links.map((l) => l.url)).toEqual([
      'https://shop.example/stop?mid=abc',
      'https://shop.example/cn?mid=abc',
      'https://shop.example/ko?mid=abc',
    ]);
    expect(full.link_count).toBe(3);
    expect(await listCount(address)).toEqual([3]);
    expect((await linksOf(id)).count).toBe(3);
    expect(await stored(id)).toEqual({ link_count: 3, links_version: LINKS_VERSION });
  });

  it('answers links for a message stored before links were kept (links null), /links read first', async () => {
    const { address, id } = await storedByOldCode(HTML_ONLY, null);
    expect((await linksOf(id)).count).toBe(2);
    expect(await listCount(address)).toEqual([2]);
  });

  it('brings every stale message of the listed page up to date, and only those', async () => {
    const address = await t.mail.inbox();
    const { rows } = await t.db.pool.query<{ id: string }>('SELECT id FROM inboxes WHERE address = $1', [address]);
    const { plainText: _, ...parsed } = await parseMessage(Buffer.from(HTML_ONLY));
    const ids = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    await insertMessages(
      t.db.pool,
      ids.map((id, k) => ({
        id,
        inboxId: rows[0]!.id,
        envelopeFrom: 'noreply@shop.example',
        toAddress: address,
        ...parsed,
        otp: null,
        otpVersion: 3,
        links: OLD_HTML_LINKS as never,
        linksVersion: k === 2 ? LINKS_VERSION : 0,
        raw: Buffer.from(HTML_ONLY),
        tag: null,
      })),
    );
    // The third claims the current version: it is not looked at again (its stored count stands).
    expect((await listCount(address)).sort()).toEqual([2, 2, 5]);
  });
});
