// Mail webhooks: `message.received` for inboxes with a webhook_url, enqueued in the transaction that stores
// the message (so a stored message always has its delivery, and a crash loses neither), sent by the platform
// engine signed with the inbox's webhook_secret. A delivery's subject is the inbox's address (`domainkit
// deliveries --inbox ADDRESS`), its secret reference the inbox's id.
import { v7 as uuidv7 } from 'uuid';
import type { Queryable } from '../platform/db/index.ts';
import type { Queue } from '../platform/queue.ts';
import { enqueueDelivery, type WebhookService } from '../platform/webhooks/index.ts';
import { webhookInboxes, webhookSecrets, type NewMessage } from './store/index.ts';

const MESSAGE_RECEIVED = 'message.received';

export function mailWebhookService(retryDelaysMs: number[]): WebhookService {
  return {
    name: 'mail',
    headerPrefix: 'X-Mail',
    retryDelaysMs,
    sendEventHeader: true,
    resolveSecrets: (refs, db) => webhookSecrets(db, refs),
  };
}

/** Enqueues one delivery per stored message whose inbox has a webhook; `stored` are the rows just inserted. */
export async function enqueueMessageWebhooks(
  tx: Queryable,
  queue: Queue,
  messages: readonly NewMessage[],
  stored: readonly { id: string; receivedAt: Date }[],
): Promise<number> {
  const byId = new Map(messages.map((m) => [m.id, m]));
  const inboxes = await webhookInboxes(tx, [...new Set(stored.map((s) => byId.get(s.id)!.inboxId))]);
  let enqueued = 0;
  for (const row of stored) {
    const message = byId.get(row.id)!;
    const inbox = inboxes.get(message.inboxId);
    if (!inbox) continue;
    const id = uuidv7();
    const body = JSON.stringify({
      event: MESSAGE_RECEIVED,
      delivery_id: id,
      timestamp: new Date().toISOString(),
      inbox: { id: inbox.id, address: inbox.address, label: inbox.label },
      message: {
        id: message.id,
        from_address: message.fromAddress,
        subject: message.subject,
        received_at: row.receivedAt.toISOString(),
        has_otp: message.otp !== null,
        otp: message.otp,
        link_count: message.links.length,
        attachment_count: message.attachments.length,
        raw_size: message.raw.length,
        tag: message.tag,
      },
    });
    await enqueueDelivery(tx, queue, {
      id,
      service: 'mail',
      event: MESSAGE_RECEIVED,
      subject: inbox.address,
      url: inbox.webhookUrl,
      body,
      secretRef: inbox.id,
    });
    enqueued++;
  }
  return enqueued;
}
