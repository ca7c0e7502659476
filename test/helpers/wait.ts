// Clients of GET /api/v1/inboxes/{address}/wait for the tests: one call, the waits the API process holds (its
// domainkit_mail_waiters gauge), and a message stored straight through the store (as the SMTP receiver
// stores it, NOTIFY included), for races that SMTP's own round trips would blur.
import { v7 as uuidv7 } from 'uuid';
import { expect } from 'vitest';
import { LINKS_VERSION, OTP_DETECTOR_VERSION } from '../../src/mail/extract/index.ts';
import { insertMessages, type NewMessage } from '../../src/mail/store/index.ts';
import type { Pool } from '../../src/platform/db/index.ts';
import { parseExposition } from './prometheus.ts';

export const NIL = '00000000-0000-0000-0000-000000000000';

export interface WaitAnswer {
  status: number;
  body: {
    status?: 'message' | 'timeout';
    cursor?: string;
    message?: Record<string, unknown> & { id: string; subject: string; to_address: string; is_read: boolean };
    otp?: string | null;
    link?: { index: number; url: string; text?: string | null; kind?: string } | null;
    code?: string;
    errors?: { path: string; location: string; message: string }[];
  };
}

export type WaitQuery = Record<string, string | number | boolean>;

/** One wait; resolves with its status and JSON body (a problem on errors). */
export async function waitFor(base: string, address: string, query: WaitQuery = {}, init: RequestInit = {}): Promise<WaitAnswer> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  const res = await fetch(`${base}/api/v1/inboxes/${encodeURIComponent(address)}/wait?${qs}`, init);
  return { status: res.status, body: (await res.json()) as WaitAnswer['body'] };
}

/** The waits the API process at `base` holds now. */
export async function waitersOf(base: string): Promise<number> {
  const res = await fetch(`${base}/metrics`);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return parseExposition(await res.text()).sum('domainkit_mail_waiters');
}

/** Resolves once the API process holds `count` waits. */
export async function waitersReach(base: string, count: number, what = `${count} waits`): Promise<void> {
  await expect.poll(() => waitersOf(base), { timeout: 20_000, interval: 20, message: what }).toBe(count);
}

/** The id of the inbox at `address`. */
export async function inboxId(base: string, address: string): Promise<string> {
  const res = await fetch(`${base}/api/v1/inboxes/${encodeURIComponent(address)}`);
  return ((await res.json()) as { id: string }).id;
}

/** Stores a message for an inbox as the receiver does (one statement with its NOTIFY); resolves with its id. */
export async function storeMessage(pool: Pool, inbox: { id: string; address: string }, fields: Partial<NewMessage> = {}): Promise<string> {
  const subject = fields.subject ?? 'stored';
  const message: NewMessage = {
    id: uuidv7(),
    inboxId: inbox.id,
    envelopeFrom: 'store@sender.test',
    toAddress: inbox.address,
    fromAddress: 'store@sender.test',
    subject,
    bodyText: subject,
    bodyHtml: null,
    headers: {},
    attachments: [],
    parseError: null,
    otp: null,
    otpVersion: OTP_DETECTOR_VERSION,
    links: [],
    linksVersion: LINKS_VERSION,
    raw: Buffer.from(`Subject: ${subject}\r\n\r\n${subject}\r\n`),
    tag: null,
    ...fields,
  };
  const [stored] = await insertMessages(pool, [message]);
  if (!stored) throw new Error('the message was not stored');
  return stored.id;
}
