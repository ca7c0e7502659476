// The two signatures every delivery carries, both keyed with the subject's secret as it was handed out (its
// characters' bytes, never hex-decoded), so one secret checks both and receivers need no second one.
import { createHmac } from 'node:crypto';

/** `<prefix>-Signature`: over the body alone, as the API documents have always promised; the same on every attempt. */
export function signature(secret: string, body: Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * The Standard Webhooks headers: the id and the attempt's time are signed with the body, so a captured delivery
 * cannot be replayed once the receiver's tolerance window has passed, nor passed off as another delivery.
 */
export function standardHeaders(secret: string, id: string, body: Buffer, at: Date): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  // The body's bytes are signed as stored, never decoded and re-encoded.
  const mac = createHmac('sha256', secret).update(`${id}.${timestamp}.`).update(body).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${mac}` };
}
