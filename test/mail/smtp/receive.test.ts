// A real SMTP client (nodemailer) sends; the API gives back every field, and the raw bytes exactly.
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { describe, expect, it } from 'vitest';
import { useMail } from '../../helpers/mail.ts';

/** A message as nodemailer builds it, ending with CRLF: SMTP's data always ends with its last line's CRLF. */
async function compose(options: ConstructorParameters<typeof MailComposer>[0]): Promise<Buffer> {
  const built = await new MailComposer(options).compile().build();
  return built.subarray(-2).toString() === '\r\n' ? built : Buffer.concat([built, Buffer.from('\r\n')]);
}

const t = useMail();

describe('receiving with a real SMTP client', () => {
  it('stores what was sent: every field readable, raw bytes equal', async () => {
    const address = await t.mail.inbox();
    const raw = await compose({
      from: '"Zoë Sender" <zoe@example.org>',
      to: address,
      subject: 'Grüße — your code ✓',
      // CRLF already: nodemailer would turn a bare LF into CRLF on the wire, and the raw is what went on the wire.
      text: 'Hello in plain text.\r\nSecond line.',
      html: '<p>Hello in <b>HTML</b>.</p>',
      headers: { 'X-Custom': 'one' },
      attachments: [{ filename: 'report.pdf', content: Buffer.alloc(1234, 7), contentType: 'application/pdf' }],
    });
    const info = await t.mail.send({ envelope: { from: 'bounce@example.org', to: [address] }, raw });
    expect(info.response).toMatch(/^250 /);

    const list = (await (await t.mail.call(`/api/v1/inboxes/${address}/messages`)).json()) as Record<string, unknown>[];
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      from_address: 'zoe@example.org',
      subject: 'Grüße — your code ✓',
      is_read: false,
      has_otp: false,
      raw_size: raw.length,
      attachment_count: 1,
    });
    const id = list[0]!.id as string;
    const message = (await (await t.mail.call(`/api/v1/messages/${id}`)).json()) as Record<string, any>;
    expect(message).toMatchObject({
      id,
      from_address: 'zoe@example.org',
      to_address: address,
      subject: 'Grüße — your code ✓',
      body_text: 'Hello in plain text.\nSecond line.',
      body_html: '<p>Hello in <b>HTML</b>.</p>',
      attachments: [{ filename: 'report.pdf', size: 1234, content_type: 'application/pdf' }],
      is_read: true,
      raw_size: raw.length,
    });
    expect(message.headers['x-custom']).toBe('one');
    expect(message.headers.subject).toBe('Grüße — your code ✓');
    // Sent as an RFC 2047 encoded word, shown decoded.
    expect(message.headers.from).toBe('Zoë Sender <zoe@example.org>');

    const rawRes = await t.mail.call(`/api/v1/messages/${id}/raw`);
    expect(rawRes.headers.get('content-type')).toBe('application/rfc822');
    expect(rawRes.headers.get('content-disposition')).toBe(`attachment; filename="${id}.eml"`);
    expect(Buffer.from(await rawRes.arrayBuffer()).equals(raw)).toBe(true);

    const inbox = (await (await t.mail.call(`/api/v1/inboxes/${address}`)).json()) as Record<string, unknown>;
    expect(inbox).toMatchObject({ address, message_count: 1, unread_count: 0 });
  });
});
