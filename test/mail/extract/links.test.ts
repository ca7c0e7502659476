// Links as /links reports them: anchors of the HTML in document order, then URLs written in a real text part,
// then List-Unsubscribe, each once; where a URL in text ends (docs/links.md); the text and kind of each link.
import { describe, expect, it } from 'vitest';
import { extractLinks } from '../../../src/mail/extract/index.ts';
import { useMail } from '../../helpers/mail.ts';

const links = (html: string | null, plainText: string | null, headers: Record<string, string> = {}) =>
  extractLinks({ html, plainText, headers });
const urls = (html: string | null, plainText: string | null) => links(html, plainText).map((l) => l.url);

describe('extractLinks: anchors', () => {
  it('takes anchors in document order, indexed from 0, with their text', () => {
    expect(links('<p><a href="https://a.example/1">one</a> <A HREF="http://b.example/2">  two\n  words </A></p>', null)).toEqual([
      { index: 0, url: 'https://a.example/1', text: 'one', kind: 'other' },
      { index: 1, url: 'http://b.example/2', text: 'two words', kind: 'other' },
    ]);
  });

  it('decodes HTML entities in href (&amp; is &) and in the text', () => {
    expect(links('<a href="https://x.example/confirm?a=1&amp;b=2&#38;c=3">Caf&eacute; &amp; more</a>', null)).toEqual([
      { index: 0, url: 'https://x.example/confirm?a=1&b=2&c=3', text: 'Café & more', kind: 'verify' },
    ]);
  });

  it('ignores mailto:, javascript:, tel:, relative links and fragments', () => {
    const html =
      '<a href="mailto:a@example.org">m</a><a href="javascript:alert(1)">j</a><a href="JavaScript:void(0)">j</a><a href="tel:+4930">t</a><a href="/relative">r</a><a href="#top">f</a><a href="ftp://x.example/f">ftp</a>';
    expect(urls(html, 'write to mailto:a@example.org or javascript:alert(1)')).toEqual([]);
  });

  it('names an image-only anchor by its alt text; an image outside an anchor is no link', () => {
    const html =
      '<a href="https://shop.example/app"><img src="https://cdn.example/badge.png" alt="Get the app"></a>' +
      '<img src="https://cdn.example/logo.png" alt="Logo"><a href="https://x.example/social"><img src="https://cdn.example/x.png"></a>';
    expect(links(html, null)).toEqual([
      { index: 0, url: 'https://shop.example/app', text: 'Get the app', kind: 'other' },
      { index: 1, url: 'https://x.example/social', text: null, kind: 'other' },
    ]);
  });

  it('reads the text of nested inline elements, not of style or script, and cuts it at 200 characters', () => {
    const long = 'word '.repeat(100);
    const [nested, cut] = links(
      `<style>a{color:red}</style><a href="https://x.example/v"><span><b>Verify</b> <i>your</i></span>\n<u>e&#8209;mail</u><style>.x{}</style></a><a href="https://x.example/l">${long}</a>`,
      null,
    );
    expect(nested).toMatchObject({ text: 'Verify your e\u2011mail', kind: 'verify' });
    expect(cut!.text!.length).toBeLessThanOrEqual(200);
    expect(cut!.text!.startsWith('word word')).toBe(true);
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

  it('adds the http(s) URLs of List-Unsubscribe last, as unsubscribe links, each once', () => {
    const headers = {
      'list-unsubscribe': '<mailto:leave@x.example?subject=unsubscribe>,\n <https://x.example/u?id=1>, <https://x.example/a>',
    };
    expect(links('<a href="https://x.example/a">Preferences</a>', null, headers)).toEqual([
      { index: 0, url: 'https://x.example/a', text: 'Preferences', kind: 'unsubscribe' },
      { index: 1, url: 'https://x.example/u?id=1', text: null, kind: 'unsubscribe' },
    ]);
  });
});

describe('extractLinks: URLs in a text part (RFC 3986 ends them)', () => {
  const cases: [string, string[]][] = [
    [
      'Confirm at https://x.example/c?t=abc123. Or (https://y.example/p) or <https://z.example/q>, see https://en.example/wiki/Foo_(bar).',
      ['https://x.example/c?t=abc123', 'https://y.example/p', 'https://z.example/q', 'https://en.example/wiki/Foo_(bar)'],
    ],
    ['こちら (https://shop.example/stop?mid=abc)から', ['https://shop.example/stop?mid=abc']],
    ['点击 (https://shop.example/stop?mid=abc)。谢谢', ['https://shop.example/stop?mid=abc']],
    ['여기 (https://shop.example/stop?mid=abc)를 클릭', ['https://shop.example/stop?mid=abc']],
    [
      'URL：https://x.example/a、https://x.example/b」です（https://x.example/c）',
      ['https://x.example/a', 'https://x.example/b', 'https://x.example/c'],
    ],
    ['[https://cdn.example/badge.png]https://shop.example/app', ['https://cdn.example/badge.png', 'https://shop.example/app']],
    ['IPv6: https://[2001:db8::1]:8080/a]b and http://user@[::1]/x.', ['https://[2001:db8::1]:8080/a', 'http://user@[::1]/x']],
    [
      '«https://x.example/g» — https://x.example/h; ‏https://x.example/heb‏ https://x.example/ar، و',
      ['https://x.example/g', 'https://x.example/h', 'https://x.example/heb', 'https://x.example/ar'],
    ],
    ['Umlaut path https://bücher.example/straße ok', ['https://xn--bcher-kva.example/stra%C3%9Fe']],
    ['nested https://t.example/r?u=https://x.example/a&x=1 stays one', ['https://t.example/r?u=https://x.example/a&x=1']],
    [
      '\'https://x.example/quoted\' and "https://x.example/dq" and *https://x.example/bold*',
      ['https://x.example/quoted', 'https://x.example/dq', 'https://x.example/bold'],
    ],
    ['nothing: https:// or https://[oops or xhttps://x.example', []],
  ];
  it.each(cases)('%s', (text, expected) => {
    expect(urls(null, text)).toEqual(expected);
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
    const body = (await res.json()) as { message_id: string; count: number; links: unknown[] };
    expect(body).toEqual({
      message_id: summary!.id,
      count: 3,
      links: [
        { index: 0, url: 'https://x.example/confirm?t=1&u=2', text: 'Confirm', kind: 'verify' },
        { index: 1, url: 'https://help.example/faq', text: 'FAQ', kind: 'other' },
        { index: 2, url: 'https://x.example/unsubscribe', text: 'Unsubscribe', kind: 'unsubscribe' },
      ],
    });
    expect(summary!.link_count).toBe(3);
    const full = (await (await t.mail.call(`/api/v1/messages/${summary!.id}`)).json()) as { links: unknown[]; link_count: number };
    expect(full.links).toEqual(body.links);
    expect((await t.mail.call('/api/v1/messages/not-a-uuid/links')).status).toBe(404);
  });
});
