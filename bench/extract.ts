// npm run bench:extract — OTP and link extraction per message, for ~10 KB messages with text and HTML parts
// (half with a code, half without, in several layouts), against the cost of parsing the same message with
// mailparser in the same process (the ingestion step extraction runs beside). Target: p99 < 2 ms.
import { performance } from 'node:perf_hooks';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { extract } from '../src/mail/extract/index.ts';
import { parseMessage } from '../src/mail/smtp/parse.ts';
import { percentile, writeResult } from './lib.ts';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 3000);
const TARGET_P99_MS = 2;

const filler = (i: number) =>
  Array.from(
    { length: 40 },
    (_, k) =>
      `Paragraph ${k} of message ${i}: order 45${k}89 shipped on 12.05.2025 at 14:${10 + (k % 50)}, total €${k}.99, call +49 30 12345${k}.`,
  ).join('\n');

function html(i: number, code: string | null): string {
  const rows = Array.from(
    { length: 30 },
    (_, k) =>
      `<tr><td style="padding:4px">Item ${k}</td><td>${k * 3} × €${k}.50</td><td><a href="https://shop.example/p/${i}/${k}?utm_source=mail&amp;utm_medium=email">view</a></td></tr>`,
  ).join('');
  const codeBlock = code
    ? `<p>Your verification code:</p><table><tr>${[...code].map((d) => `<td style="font-size:28px">${d}</td>`).join('')}</tr></table>`
    : '<p>Thanks for shopping with us.</p>';
  return `<html><body><h1>Hello</h1>${codeBlock}<table>${rows}</table><p>© 2025 Example GmbH, Musterstraße 1, 10115 Berlin</p></body></html>`;
}

const messages: Buffer[] = [];
for (let i = 0; i < 200; i++) {
  const code = i % 2 === 0 ? String(100000 + ((i * 7919) % 900000)) : null;
  const built = await new MailComposer({
    from: 'Shop <noreply@shop.example>',
    to: 'someone@inbox.test',
    subject: code ? `Your code ${i % 4 === 0 ? code : ''}`.trim() : `Your order ${4589200 + i} has shipped`,
    text: `${code ? `Your verification code is ${code}.` : 'Thanks for your order.'}\n${filler(i)}`,
    html: html(i, code),
  })
    .compile()
    .build();
  messages.push(built);
}
const parsed = await Promise.all(messages.map((m) => parseMessage(m)));
const avgBytes = Math.round(messages.reduce((n, m) => n + m.length, 0) / messages.length);

// Warm up both, then interleave: each message is parsed and extracted in turn, so both see the same machine.
for (let i = 0; i < 400; i++) {
  const p = parsed[i % parsed.length]!;
  extract({ subject: p.subject, text: p.bodyText, html: p.bodyHtml, plainText: p.plainText, headers: p.headers });
  await parseMessage(messages[i % messages.length]!);
}
const extractMs: number[] = [];
const parseMs: number[] = [];
let found = 0;
for (let i = 0; i < MESSAGES; i++) {
  const p = parsed[i % parsed.length]!;
  let t = performance.now();
  const result = extract({ subject: p.subject, text: p.bodyText, html: p.bodyHtml, plainText: p.plainText, headers: p.headers });
  extractMs.push(performance.now() - t);
  if (result.otp) found++;
  t = performance.now();
  await parseMessage(messages[i % messages.length]!);
  parseMs.push(performance.now() - t);
}

const round = (n: number) => Math.round(n * 1000) / 1000;
const p99 = percentile(extractMs, 99);
await writeResult('extract', {
  messages: MESSAGES,
  message_bytes_avg: avgBytes,
  with_code_found: `${found} of ${MESSAGES} (half carry a code)`,
  extract_ms: { p50: round(percentile(extractMs, 50)), p99: round(p99), max: round(Math.max(...extractMs)) },
  baseline_parse_ms: { p50: round(percentile(parseMs, 50)), p99: round(percentile(parseMs, 99)) },
  ratio_p50_extract_to_parse: round(percentile(extractMs, 50) / percentile(parseMs, 50)),
  target: { extract_p99_ms: `< ${TARGET_P99_MS}` },
  met: p99 < TARGET_P99_MS,
});
if (p99 >= TARGET_P99_MS) console.log(`TARGET MISSED: extraction p99 ${round(p99)} ms >= ${TARGET_P99_MS} ms`);
