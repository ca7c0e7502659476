// The labelled corpora of test/fixtures/otp/ (the development corpus; its README has the label rules) and
// otp-heldout/, otp-heldout2/ and otp-set-a/ to otp-set-q/ (each written later by other hands, first measured
// untouched; their READMEs have the figures), each email sent over SMTP as it is and its code asked of
// GET /api/v1/messages/{id}/otp. Precision and recall are printed for each, and
// both are held to the targets: precision ≥ 0.99, recall ≥ 0.97 (a set measured but not yet worked into the
// detector is held to its untouched figures instead, given as `floor`).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OTP_DETECTOR_VERSION } from '../../../src/mail/extract/index.ts';
import { useMail } from '../../helpers/mail.ts';
import { SmtpClient } from '../../helpers/smtp.ts';

interface Corpus {
  name: string;
  dir: string;
  labels: Record<string, string | null>;
  files: string[];
  /** What precision and recall must reach: the targets, or for a set not yet worked into the detector its untouched figures. */
  floor: { precision: number; recall: number };
}

const TARGETS = { precision: 0.99, recall: 0.97 };

function corpus(name: string, floor = TARGETS): Corpus {
  const dir = fileURLToPath(new URL(`../../fixtures/${name}/`, import.meta.url));
  const labels = JSON.parse(readFileSync(`${dir}labels.json`, 'utf8')) as Record<string, string | null>;
  return {
    name,
    dir,
    labels,
    floor,
    files: readdirSync(dir)
      .filter((f) => f.endsWith('.eml'))
      .sort(),
  };
}

const CORPORA = [
  corpus('otp'),
  corpus('otp-heldout'),
  corpus('otp-heldout2'),
  corpus('otp-set-a'),
  corpus('otp-set-b'),
  corpus('otp-set-c'),
  corpus('otp-set-d'),
  corpus('otp-set-e'),
  corpus('otp-set-f'),
  corpus('otp-set-g'),
  corpus('otp-set-h'),
  corpus('otp-set-i'),
  corpus('otp-set-j'),
  corpus('otp-set-k'),
  corpus('otp-set-l'),
  corpus('otp-set-m'),
  corpus('otp-set-n'),
  corpus('otp-set-o'),
  corpus('otp-set-p'),
  // Measured once untouched (its README), no rule changed for it yet: held to that figure, so that a change that
  // makes the detector worse on unseen mail shows.
  corpus('otp-set-q', { precision: 99 / 103, recall: 99 / 103 }),
];

const t = useMail();

interface Outcome {
  file: string;
  expected: string | null;
  got: string | null;
}

async function deliver(client: SmtpClient, dir: string, file: string): Promise<string> {
  const address = await t.mail.inbox();
  const reply = await client.send({ from: 'sender@example.org', to: [address] }, readFileSync(`${dir}${file}`));
  if (reply.code !== 250) throw new Error(`${file}: SMTP answered ${reply.text}`);
  const [message] = (await (await t.mail.call(`/api/v1/inboxes/${address}/messages`)).json()) as { id: string }[];
  return message!.id;
}

describe.each(CORPORA)('OTP detection over the labelled corpus $name', ({ name, dir, labels, files, floor }) => {
  it('every file is labelled, and every label has a file', () => {
    expect(files.length).toBeGreaterThanOrEqual(name.startsWith('otp-set-') ? 200 : name === 'otp' ? 150 : 60);
    expect(Object.keys(labels).sort()).toEqual(files);
  });

  it(`meets precision ≥ ${floor.precision.toFixed(4)} and recall ≥ ${floor.recall.toFixed(4)} through SMTP and GET …/otp`, {
    timeout: 120_000,
  }, async () => {
    const outcomes: Outcome[] = [];
    const clients = await Promise.all(Array.from({ length: 4 }, () => SmtpClient.connect(t.mail.smtpPort)));
    let next = 0;
    await Promise.all(
      clients.map(async (client) => {
        for (let i = next++; i < files.length; i = next++) {
          const file = files[i]!;
          const id = await deliver(client, dir, file);
          const res = await t.mail.call(`/api/v1/messages/${id}/otp`);
          expect(res.status, file).toBe(200);
          const body = (await res.json()) as { message_id: string; otp: string | null; found: boolean; subject: string };
          expect(body.message_id).toBe(id);
          expect(body.found).toBe(body.otp !== null);
          outcomes.push({ file, expected: labels[file] ?? null, got: body.otp });
        }
        await client.quit();
      }),
    );

    const positives = outcomes.filter((o) => o.expected !== null);
    const predicted = outcomes.filter((o) => o.got !== null);
    const right = predicted.filter((o) => o.got === o.expected);
    const precision = predicted.length ? right.length / predicted.length : 1;
    const recall = positives.length ? right.length / positives.length : 1;
    const wrong = outcomes.filter((o) => o.got !== o.expected);
    console.log(
      `OTP detector v${OTP_DETECTOR_VERSION} on ${name}: ${outcomes.length} emails (${positives.length} with a code); ` +
        `precision ${precision.toFixed(4)} (${right.length}/${predicted.length}), recall ${recall.toFixed(4)} (${right.length}/${positives.length})` +
        (wrong.length ? `\n  wrong: ${wrong.map((o) => `${o.file} expected ${o.expected} got ${o.got}`).join('\n  wrong: ')}` : ''),
    );
    expect(precision).toBeGreaterThanOrEqual(floor.precision);
    expect(recall).toBeGreaterThanOrEqual(floor.recall);
  });
});

describe('a message an older detector found nothing in', () => {
  it('is looked at again by GET …/otp, and the finding is stored', async () => {
    const address = await t.mail.inbox();
    await t.mail.send({ from: 'a@example.org', to: address, subject: 'Your sign-in code', text: 'Your sign-in code is 604213.' });
    const [message] = (await (await t.mail.call(`/api/v1/inboxes/${address}/messages`)).json()) as { id: string; has_otp: boolean }[];
    expect(message!.has_otp).toBe(true);
    // As an earlier version would have left it.
    await t.db.pool.query(`UPDATE messages SET otp = NULL, otp_version = 0 WHERE id = $1`, [message!.id]);
    expect(((await (await t.mail.call(`/api/v1/inboxes/${address}/messages`)).json()) as { has_otp: boolean }[])[0]!.has_otp).toBe(false);

    const body = (await (await t.mail.call(`/api/v1/messages/${message!.id}/otp`)).json()) as { otp: string | null; found: boolean };
    expect(body).toMatchObject({ otp: '604213', found: true });
    const { rows } = await t.db.pool.query(`SELECT otp, otp_version FROM messages WHERE id = $1`, [message!.id]);
    expect(rows[0]).toEqual({ otp: '604213', otp_version: OTP_DETECTOR_VERSION });
    const full = (await (await t.mail.call(`/api/v1/messages/${message!.id}`)).json()) as { otp_detected: string; has_otp: boolean };
    expect(full).toMatchObject({ otp_detected: '604213', has_otp: true });
  });

  it('a message with no code answers found: false, and unknown ids 404', async () => {
    const address = await t.mail.inbox();
    await t.mail.send({ from: 'a@example.org', to: address, subject: 'Hello', text: 'Nothing to see here, see you on 12.05.2026.' });
    const [message] = (await (await t.mail.call(`/api/v1/inboxes/${address}/messages`)).json()) as { id: string }[];
    expect(await (await t.mail.call(`/api/v1/messages/${message!.id}/otp`)).json()).toEqual({
      message_id: message!.id,
      otp: null,
      found: false,
      subject: 'Hello',
    });
    expect((await t.mail.call('/api/v1/messages/0190b1a2-0000-7000-8000-000000000000/otp')).status).toBe(404);
  });
});
