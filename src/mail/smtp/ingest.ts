// Stores accepted messages. Up to two writes run at once; messages that arrive while both are in flight are
// written together by the next one (one statement, one commit), so under load the commit cost is shared
// without any message waiting for a timer, and alone a message is written at once. Each sender is answered
// only after its own rows are committed.
import { v7 as uuidv7 } from 'uuid';
import { withTransaction, type Pool } from '../../platform/db/index.ts';
import type { Logger } from '../../platform/log.ts';
import type { Queue } from '../../platform/queue.ts';
import { extract } from '../extract/index.ts';
import { messagesStored } from '../metrics.ts';
import { insertMessages, type NewMessage } from '../store/index.ts';
import { enqueueMessageWebhooks } from '../webhooks.ts';
import { parseMessage } from './parse.ts';

export interface Envelope {
  from: string;
  /** Live inboxes at RCPT time, one entry per inbox (whether it has a webhook, and the tag it was named with). */
  recipients: Recipient[];
}

export type Recipient = { address: string; inboxId: string; webhook: boolean; tag: string | null };

export interface Stored {
  /** The stored message ids. */
  ids: string[];
  /** Recipients whose inbox was deleted since RCPT: nothing was stored for them. */
  lost: Recipient[];
}

export interface Ingest {
  /** Resolves once committed; rejects when nothing could be committed. */
  store(envelope: Envelope, raw: Buffer): Promise<Stored>;
}

/** Writes in flight at once: one more than one, so a message need not wait for a whole batch before its own. */
const WRITERS = 2;
/** At most this many rows, or this many bytes, in one statement. */
const MAX_BATCH_ROWS = 200;
const MAX_BATCH_BYTES = 16 * 1024 * 1024;

interface Pending {
  messages: NewMessage[];
  recipients: Recipient[];
  /** A recipient inbox has a webhook: its delivery is enqueued in the same transaction. */
  webhook: boolean;
  resolve(stored: Stored): void;
  reject(err: unknown): void;
}

export function createIngest(pool: Pool, log: Logger, queue: Queue | undefined): Ingest {
  const waiting: Pending[] = [];
  let writing = 0;

  function pump(): void {
    while (waiting.length > 0 && writing < WRITERS) {
      const batch = takeBatch();
      writing++;
      void writeBatch(batch).finally(() => {
        writing--;
        pump();
      });
    }
  }

  async function writeBatch(batch: Pending[]): Promise<void> {
    try {
      await write(batch);
    } catch {
      // One message's problem must not refuse the others: alone, each succeeds or fails on its own.
      for (const p of batch) {
        await write([p]).catch((err: unknown) => {
          log.error({ err }, 'could not store a message');
          p.reject(err);
        });
      }
    }
  }

  async function write(batch: Pending[]): Promise<void> {
    const messages = batch.flatMap((p) => p.messages);
    // One statement, committed alone, unless a webhook rides along: then one transaction for both.
    const rows =
      queue && batch.some((p) => p.webhook)
        ? await withTransaction(pool, async (tx) => {
            const inserted = await insertMessages(tx, messages);
            await enqueueMessageWebhooks(tx, queue, messages, inserted);
            return inserted;
          })
        : await insertMessages(pool, messages);
    messagesStored.inc(rows.length);
    const stored = new Set(rows.map((r) => r.id));
    for (const p of batch) {
      p.resolve({
        ids: p.messages.map((m) => m.id).filter((id) => stored.has(id)),
        lost: p.recipients.filter((_, k) => !stored.has(p.messages[k]!.id)),
      });
    }
  }

  function takeBatch(): Pending[] {
    const batch: Pending[] = [];
    let rows = 0;
    let bytes = 0;
    while (waiting.length > 0) {
      const next = waiting[0]!;
      const size = next.messages.reduce((n, m) => n + m.raw.length, 0);
      if (batch.length > 0 && (rows + next.messages.length > MAX_BATCH_ROWS || bytes + size > MAX_BATCH_BYTES)) break;
      batch.push(waiting.shift()!);
      rows += next.messages.length;
      bytes += size;
    }
    return batch;
  }

  return {
    async store(envelope, raw) {
      const { plainText, ...parsed } = await parseMessage(raw);
      const found = extract({
        subject: parsed.subject,
        text: parsed.bodyText,
        html: parsed.bodyHtml,
        sender: parsed.fromAddress,
        plainText,
        headers: parsed.headers,
      });
      const messages: NewMessage[] = envelope.recipients.map((r) => ({
        id: uuidv7(),
        inboxId: r.inboxId,
        envelopeFrom: envelope.from,
        toAddress: r.address,
        ...parsed,
        ...found,
        raw,
        tag: r.tag,
      }));
      return new Promise<Stored>((resolve, reject) => {
        waiting.push({ messages, recipients: envelope.recipients, webhook: envelope.recipients.some((r) => r.webhook), resolve, reject });
        pump();
      });
    },
  };
}
