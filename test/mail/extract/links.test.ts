// Links as /links reports them: anchors of the HTML in document order, then URLs written in the text, each once.
import { describe, expect, it } from 'vitest';
import { extractLinks } from '../../../src/mail/extract/index.ts';
import { useMail } from '../../helpers/mail.ts';

const urls = (html: string | null, text: string | null) => extractLinks(html, text).map((l) => l.url);

describe('extractLinks', () => {
  it('takes anchors in document order, indexed from 0', () => {
    expect(extractLinks('<p><a href="https://a.example/1">one</a> <A HREF="http://b.example/2">two</A></p>', null)).toEqual([
      { index: 0, url: 'https://a.example/1' },
      { index: 1, url: 'http://b.example/2' },
    ]);
  });

  it('decodes HTML entities in href (&amp; is &)', () => {
    expect(urls('<a href="https://x.example/confirm?a=1&amp;b=2&#38;c=3">go</a>', null)).toEqual(['https://x.example/confirm?a=1&b=2&c=3']);
  });

  it('ignores mailto:, javascript:, tel:, relative links and fragments', () => {
    const html =
      '<a href="mailto:a@example.org">m</a><a href="javascript:alert(1)">j</a><a href="JavaScript:void(0)">j</a><a href="tel:+4930">t</a><a href="/relative">r</a><a href="#top">f</a><a href="ftp://x.example/f">ftp</a>';
    expect(urls(html, 'write to mailto:a@example.org or javascript:alert(1)')).toEqual([]);
  });

  it('finds bare URLs in text without the punctuation that ends a sentence or a bracket', () => {
    const text =
      'Confirm at https://x.example/c?t=abc123. Or (https://y.example/p) or <https://z.example/q>, see https://en.example/wiki/Foo_(bar).';
    expect(urls(null, text)).toEqual([
      'https://x.example/c?t=abc123',
      'https://y.example/p',
      'https://z.example/q',
      'https://en.example/wiki/Foo_(bar)',
    ]);
  });

  it('lists a link once, comparing normalised forms; tracking wrappers are kept as they are', () => {
    const html =
      '<a href="HTTPS://X.EXAMPLE/a">1</a><a href="https://x.example:443/a">2</a><a href="https://track.example/r?u=https%3A%2F%2Fx.example%2Fa">3</a>';
    expect(urls(html, 'again: https://x.example/a and https://track.example/r?u=https%3A%2F%2Fx.example%2Fa')).toEqual([
      'https://x.example/a',
      'https://track.example/r?u=https%3A%2F%2Fx.example%2Fa',
    ]);
  });

  it('anchors come before text links; a text link already seen as an anchor is not repeated', () => {
    expect(urls('<a href="https://b.example/">b</a>', 'https://a.example/ then https://b.example/')).toEqual([
      'https://b.example/',
      'https://a.example/',
    ]);
  });
});

describe('GET /api/v1/messages/{id}/links and link_count', () => {
  const t = useMail();

  it('agree with each other, for a message with anchors, bare URLs and duplicates', async () => {
    const address = await t.mail.inbox();
    await t.mail.send({
      from: 'a@example.org',
      to: address,
      subject: 'Confirm your address',
      text: 'Confirm: https://x.example/confirm?t=1&u=2\nHelp: https://help.example/faq.\nmailto:help@example.org',
      html: '<p><a href="https://x.example/confirm?t=1&amp;u=2">Confirm</a> <a href="mailto:help@example.org">mail</a> <a href="https://help.example/faq">FAQ</a> <a href="https://x.example/unsubscribe">Unsubscribe</a></p>',
    });
    const [summary] = (await (await t.mail.call(`/api/v1/inboxes/${address}/messages`)).json()) as { id: string; link_count: number }[];
    const res = await t.mail.call(`/api/v1/messages/${summary!.id}/links`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { message_id: string; count: number; links: { index: number; url: string }[] };
    expect(body).toEqual({
      message_id: summary!.id,
      count: 3,
      links: [
        { index: 0, url: 'https://x.example/confirm?t=1&u=2' },
        { index: 1, url: 'https://help.example/faq' },
        { index: 2, url: 'https://x.example/unsubscribe' },
      ],
    });
    expect(summary!.link_count).toBe(3);
    const full = (await (await t.mail.call(`/api/v1/messages/${summary!.id}`)).json()) as { links: unknown[]; link_count: number };
    expect(full.links).toEqual(body.links);
    expect((await t.mail.call('/api/v1/messages/not-a-uuid/links')).status).toBe(404);
  });
});
