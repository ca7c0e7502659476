// The public MIME corpora copied into test/fixtures/corpus/mime/ (every *.eml file, real-world and deliberately
// malformed; their origins are in that folder's README.md): each is accepted over SMTP and readable
// through the API without a server error, raw bytes exactly as sent.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { useMail } from '../helpers/mail.ts';
import { dataFor, SmtpClient, toCrlf } from '../helpers/smtp.ts';

const CORPUS = fileURLToPath(new URL('../fixtures/corpus/mime/', import.meta.url));

const files = (readdirSync(CORPUS, { recursive: true, encoding: 'utf8' }) as string[]).filter((name) => name.endsWith('.eml')).sort();

/**
 * Each file goes out twice over our own SMTP client (test/helpers/smtp.ts), so the bytes on the wire are
 * known exactly:
 *  - "as is": the file's bytes unchanged, bare LFs included (as a careless client or a spammer sends them);
 *  - "CRLF": every line ending made CRLF, as a conforming client (nodemailer, Postfix) sends the same message;
 *    left out when the file has no bare LF (it would be the same bytes).
 * Both are dot-stuffed; the server must then hold `delivered` = those bytes + a CRLF when they do not already
 * end with CRLF (the CRLF before the closing dot is part of the message). GET raw must return exactly that.
 */
const cases = files.flatMap((file) => {
  const bytes = readFileSync(`${CORPUS}${file}`);
  const crlf = toCrlf(bytes);
  return [{ name: `${file} (as is)`, content: bytes }, ...(crlf.equals(bytes) ? [] : [{ name: `${file} (CRLF)`, content: crlf }])];
});

const t = useMail();

// Concurrent (vitest's maxConcurrency, 5 at a time): each case has an inbox and a connection of its own, and
// most of a case's time is smtp-server's fixed 100 ms wait before its greeting.
describe.concurrent('the public MIME corpus', () => {
  it(`is there: ${files.length} .eml files under ${CORPUS}`, ({ expect }) => {
    expect(files.length).toBeGreaterThanOrEqual(80);
  });

  for (const { name, content } of cases) {
    it(`${name}: accepted over SMTP, readable through the API without a 5xx`, async ({ expect }) => {
      const { delivered } = dataFor(content);
      const address = await t.mail.inbox();

      const client = await SmtpClient.connect(t.mail.smtpPort);
      try {
        const reply = await client.send({ from: 'corpus@sender.test', to: [address] }, content);
        expect(reply.code, `${name}: SMTP answered ${reply.text}`).toBe(250);
      } finally {
        await client.quit();
      }

      /** GET through the API; never a 5xx, and the status expected. */
      const get = async (path: string, status = 200): Promise<Response> => {
        const res = await t.mail.call(path);
        if (res.status >= 500 || res.status !== status) {
          expect.fail(`${name}: GET ${path} answered ${res.status}: ${await res.text()}`);
        }
        return res;
      };

      const list = (await (await get(`/api/v1/inboxes/${address}/messages`)).json()) as { id: string; raw_size: number }[];
      expect(list, `${name}: one message listed`).toHaveLength(1);
      const { id } = list[0]!;
      expect(list[0]!.raw_size, `${name}: raw_size`).toBe(delivered.length);

      const full = await get(`/api/v1/messages/${id}`);
      expect(full.headers.get('content-type'), `${name}: message content-type`).toMatch(/^application\/json/);
      const message = (await full.json()) as Record<string, unknown>;
      expect(message, `${name}: message`).toMatchObject({ id, to_address: address, raw_size: delivered.length, is_read: true });

      const raw = Buffer.from(await (await get(`/api/v1/messages/${id}/raw`)).arrayBuffer());
      // Not toEqual on 1 MB buffers: a mismatch would print both whole.
      expect(raw.length, `${name}: raw length`).toBe(delivered.length);
      expect(raw.equals(delivered), `${name}: raw bytes equal the bytes sent`).toBe(true);

      const stats = (await (await get(`/api/v1/inboxes/${address}/stats`)).json()) as Record<string, unknown>;
      expect(stats, `${name}: stats`).toMatchObject({ address, message_count: 1, unread_count: 0, total_bytes: delivered.length });

      await get(`/api/v1/inboxes/${address}`);
    });
  }
});
