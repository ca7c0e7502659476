// Generated messages with the links they hold, for the property tests of link extraction: HTML with anchors
// around images and nested inline elements, entities, tracking redirects, mailto:/tel: links and images outside
// anchors; text parts whose URLs are wrapped or followed by the punctuation of Latin, CJK, Arabic and Hebrew text
// and full-width forms; every MIME layout a parser may turn HTML into text for. Each message knows which links it
// holds (URL in WHATWG form, anchor text or null), in order, and the decoded text they are written in.
import fc from 'fast-check';

export interface ExpectedLink {
  url: string;
  text: string | null;
}

export interface GeneratedMessage {
  /** The message as sent (UTF-8): a string, so a counterexample reads as mail. */
  source: string;
  layout: Layout;
  expected: ExpectedLink[];
  /** The HTML with its entities decoded, the text part, and List-Unsubscribe: where every link must be written. */
  written: string;
}

const LAYOUTS = ['html', 'text', 'alternative', 'mixed-alternative-attachment', 'related-html-image', 'mixed-html-text'] as const;
type Layout = (typeof LAYOUTS)[number];

// ------------------------------------------------------------------------------------------------------- URLs

const SAFE_END = /[A-Za-z0-9_~\-/=%]$/;
const segment = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_~-]([A-Za-z0-9._~-]{0,10}[A-Za-z0-9_~-])?$/),
  fc.constantFrom('Foo_(bar)', '%E3%81%82', 'a%20b', 'v1.2', 'caf%C3%A9'),
);
const query = fc.array(fc.tuple(fc.stringMatching(/^[a-z_]{1,6}$/), fc.stringMatching(/^[A-Za-z0-9_~.-]{0,12}[A-Za-z0-9]$/)), {
  minLength: 1,
  maxLength: 4,
});
const host = fc.constantFrom('shop.example', 'mail.example.org', 'a.b.example.net', 'xn--bcher-kva.example', '127.0.0.1', '[2001:db8::1]');
const plainUrl = fc
  .record({
    scheme: fc.constantFrom('https', 'http'),
    host,
    port: fc.constantFrom('', '', '', ':8080'),
    path: fc.array(segment, { maxLength: 4 }),
    query: fc.option(query, { nil: undefined }),
    fragment: fc.option(fc.stringMatching(/^[a-z0-9-]{1,8}$/), { nil: undefined }),
  })
  .map(({ scheme, host, port, path, query, fragment }) => {
    const q = query ? `?${query.map(([k, v]) => `${k}=${v}`).join('&')}` : '';
    return `${scheme}://${host}${port}/${path.join('/')}${q}${fragment ? `#${fragment}` : ''}`;
  });
/** A URL in WHATWG form (so the one found is the one written), ending in a character no sentence ends with. */
export const url = fc
  .oneof(
    { weight: 3, arbitrary: plainUrl },
    plainUrl.map((target) => `https://click.example/r?u=${encodeURIComponent(target)}&sig=a1`),
  )
  .filter((u) => SAFE_END.test(u) || u.endsWith(')'))
  .filter((u) => {
    try {
      return new URL(u).href === u;
    } catch {
      return false;
    }
  });

// ------------------------------------------------------------------------------------------------------- HTML

/** HTML source and what a reader sees of it. */
interface Fragment {
  html: string;
  text: string;
}

const ENTITIES: Fragment[] = [
  { html: '&amp;', text: '&' },
  { html: '&eacute;', text: 'é' },
  { html: '&nbsp;', text: ' ' },
  { html: '&#8217;', text: '\u2019' },
  { html: '&#x4E2D;', text: '中' },
  { html: '&lt;3', text: '<3' },
];
const WORDS = ['Verify', 'your', 'account', 'Bestätigen', 'confirmer', 'こちら', '确认', '확인', 'تأكيد', 'אישור', 'Sign', 'in', 'now'];
const word = fc.constantFrom(...WORDS).map((w): Fragment => ({ html: w, text: w }));
const inline: fc.Arbitrary<Fragment> = fc
  .array(fc.oneof({ weight: 4, arbitrary: word }, fc.constantFrom(...ENTITIES)), { minLength: 1, maxLength: 4 })
  .chain((parts) =>
    fc.constantFrom('', 'b', 'i', 'span style="color:#333"', 'strong', 'em', 'font face="Arial"').map((tag) => {
      const html = parts.map((p) => p.html).join(' ');
      const text = parts.map((p) => p.text).join(' ');
      const name = tag.split(' ')[0]!;
      return tag ? { html: `<${tag}>${html}</${name}>`, text } : { html, text };
    }),
  );
const image = fc
  .record({ n: fc.nat(999), alt: fc.option(fc.constantFrom('Get the app', 'Sign in', 'Logo', 'Télécharger'), { nil: undefined }) })
  .map(({ n, alt }) => ({
    html: `<img src="https://cdn.example/img/${n}.png"${alt === undefined ? '' : ` alt="${alt}"`} width="120">`,
    alt,
  }));

/** An element of the HTML body, and the link it holds (if any). */
interface Piece {
  html: string;
  link?: ExpectedLink;
}

/** `&` written as HTML requires it in an attribute. */
const attribute = (value: string, numeric: boolean) => value.replaceAll('&', numeric ? '&#38;' : '&amp;');
const collapse = (text: string) => text.replace(/\s+/g, ' ').trim() || null;

const anchor: fc.Arbitrary<Piece> = fc
  .record({
    url,
    numeric: fc.boolean(),
    content: fc.array(
      fc.oneof(
        inline.map((f) => ({ ...f, alt: undefined as string | undefined })),
        image.map((i) => ({ html: i.html, text: '', alt: i.alt })),
      ),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
  })
  .map(({ url: u, numeric, content }) => {
    const text = collapse(content.map((c) => c.text).join('')) ?? collapse(content.flatMap((c) => (c.alt ? [c.alt] : [])).join(' '));
    return {
      html: `<a href="${attribute(u, numeric)}" target="_blank">${content.map((c) => c.html).join('')}</a>`,
      link: { url: u, text },
    };
  });
const notALink: fc.Arbitrary<Piece> = fc.oneof(
  image.map((i) => ({ html: i.html })),
  fc
    .constantFrom(
      '<a href="mailto:help@shop.example?subject=Hi">Write to us</a>',
      '<a href="tel:+4930123456">Call</a>',
      '<a href="#top">Top</a>',
      '<a href="/relative/path">Relative</a>',
      '<a name="anchor">Named</a>',
      '<p>Our address: Musterstraße 1 [1] (see above).</p>',
    )
    .map((html) => ({ html })),
  url.map((u) => ({ html: `<p>Written out, not linked: ${u.replaceAll('&', '&amp;')}</p>` })),
);
const htmlBody = fc
  .array(
    fc.oneof(
      { weight: 2, arbitrary: anchor },
      notALink,
      inline.map((f): Piece => ({ html: f.html })),
    ),
    { maxLength: 8 },
  )
  .map((pieces) => ({
    html: `<!doctype html><html><head><style>p{margin:0}</style><title>Mail</title></head><body><table><tr><td>${pieces
      .map((p) => `<p>${p.html}</p>`)
      .join('\n')}</td></tr></table></body></html>`,
    links: pieces.flatMap((p) => (p.link ? [p.link] : [])),
  }));

// ------------------------------------------------------------------------------------------------------- text

/** How a URL sits in a sentence: what is written before and after it. */
const WRAPS: [string, string][] = [
  // Latin
  ['Visit ', ' today.'],
  ['(', ')'],
  ['(see ', ').'],
  ['<', '>'],
  ['"', '"'],
  ["'", "'"],
  ['', '.'],
  ['at ', ', then'],
  ['', '!'],
  ['', '?'],
  ['Link: ', ':'],
  ['', ';'],
  ['*', '*'],
  ['[', ']'],
  ['[', '](x)'],
  ['\t', '\r\n'],
  // CJK
  ['こちら（', '）から'],
  ['こちら (', ')から'],
  ['', '。'],
  ['「', '」'],
  ['『', '』です'],
  ['【', '】'],
  ['', '、次へ'],
  ['点击', '。'],
  ['请访问：', '，谢谢'],
  ['', '를 클릭'],
  ['여기(', ')를'],
  ['링크: ', '입니다'],
  ['URL：', 'をご覧ください'],
  // Arabic and Hebrew, with the direction marks bidirectional text carries
  ['زوروا ', '، شكرا'],
  ['', '؟'],
  ['(', ')؛'],
  ['\u200f', '\u200f'],
  ['رابط: ', ' .'],
  ['בקרו ב-', '. תודה'],
  ['', '׃'],
  ['"', '" ‏'],
  ['\u200e', '\u200e.'],
  ['קישור: ', ' ־ כאן'],
  // full-width forms
  ['：', '！'],
  ['', '．'],
  ['', '，'],
  ['＜', '＞'],
  ['（', '）'],
  ['\u3000', '\u3000'],
];
const NOT_URLS = [
  'Write to mailto:help@shop.example.',
  'Call tel:+4930123456',
  'www.shop.example is our site',
  'https:// alone',
  'ftp://files.example/f',
];

const textBody = fc
  .array(fc.oneof({ weight: 3, arbitrary: fc.tuple(url, fc.constantFrom(...WRAPS)) }, fc.constantFrom(...NOT_URLS)), { maxLength: 6 })
  .map((items) => ({
    text: items.map((item) => (typeof item === 'string' ? item : `${item[1][0]}${item[0]}${item[1][1]}`)).join('\n'),
    urls: items.flatMap((item) => (typeof item === 'string' ? [] : [item[0]])),
  }));

// ------------------------------------------------------------------------------------------------------- MIME

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64').replace(/.{76}/g, '$&\r\n');
}

/** Quoted-printable with soft line breaks, which may fall inside a URL. */
function quotedPrintable(text: string): string {
  const lines = text.split(/\r?\n/).map((line) => {
    const bytes = [...Buffer.from(line, 'utf8')];
    const tokens = bytes.map((b, k) =>
      (b >= 33 && b <= 126 && b !== 61) || (b === 32 && k < bytes.length - 1)
        ? String.fromCharCode(b)
        : `=${b.toString(16).toUpperCase().padStart(2, '0')}`,
    );
    const out: string[] = [];
    let current = '';
    for (const token of tokens) {
      if (current.length + token.length > 72) {
        out.push(`${current}=`);
        current = '';
      }
      current += token;
    }
    out.push(current);
    return out.join('\r\n');
  });
  return lines.join('\r\n');
}

function part(type: string, body: string, qp: boolean): string {
  const encoding = qp ? 'quoted-printable' : 'base64';
  return `Content-Type: ${type}; charset=utf-8\r\nContent-Transfer-Encoding: ${encoding}\r\n\r\n${qp ? quotedPrintable(body) : base64(body)}\r\n`;
}

function multipart(type: string, boundary: string, parts: string[]): string {
  return `Content-Type: ${type}; boundary="${boundary}"\r\n\r\n${parts.map((p) => `--${boundary}\r\n${p}`).join('')}--${boundary}--\r\n`;
}

const ATTACHMENT =
  'Content-Type: application/pdf; name="a.pdf"\r\nContent-Disposition: attachment; filename="a.pdf"\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQKJcfsj6IK\r\n';
const INLINE_IMAGE =
  'Content-Type: image/png\r\nContent-ID: <logo@x>\r\nContent-Disposition: inline\r\nContent-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=\r\n';

export const message: fc.Arbitrary<GeneratedMessage> = fc
  .record({
    layout: fc.constantFrom(...LAYOUTS),
    html: htmlBody,
    text: textBody,
    qp: fc.boolean(),
    unsubscribe: fc.option(url, { nil: undefined }),
  })
  .map(({ layout, html, text, qp, unsubscribe }) => {
    const htmlPart = part('text/html', html.html, qp);
    const textPart = part('text/plain', text.text, !qp);
    const body: Record<Layout, string> = {
      html: htmlPart,
      text: textPart,
      alternative: multipart('multipart/alternative', 'alt-1', [textPart, htmlPart]),
      'mixed-alternative-attachment': multipart('multipart/mixed', 'mix-1', [
        multipart('multipart/alternative', 'alt-1', [textPart, htmlPart]),
        ATTACHMENT,
      ]),
      'related-html-image': multipart('multipart/related', 'rel-1', [htmlPart, INLINE_IMAGE]),
      'mixed-html-text': multipart('multipart/mixed', 'mix-1', [htmlPart, textPart]),
    };
    const hasHtml = layout !== 'text';
    const hasText = !['html', 'related-html-image'].includes(layout);
    const header = unsubscribe ? `List-Unsubscribe: <mailto:leave@shop.example>, <${unsubscribe}>\r\n` : '';
    const source = `From: Shop <noreply@shop.example>\r\nTo: someone@inbox.test\r\nSubject: Links\r\nMIME-Version: 1.0\r\n${header}${body[layout]}`;

    const expected: ExpectedLink[] = [];
    const add = (link: ExpectedLink) => {
      if (!expected.some((e) => e.url === link.url)) expected.push({ ...link });
    };
    if (hasHtml) html.links.forEach(add);
    if (hasText) for (const u of text.urls) add({ url: u, text: null });
    if (unsubscribe) add({ url: unsubscribe, text: null });
    const decodedHtml = html.html.replaceAll('&#38;', '&').replaceAll('&amp;', '&');
    return { source, layout, expected, written: [hasHtml ? decodedHtml : '', hasText ? text.text : '', unsubscribe ?? ''].join('\n') };
  });
