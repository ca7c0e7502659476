// Rows as the API shows them (snake_case, ISO timestamps).
import type { MessageRow, MessageSummary } from '../store.ts';

export function summaryView(m: MessageSummary) {
  return {
    id: m.id,
    from_address: m.fromAddress,
    subject: m.subject,
    received_at: m.receivedAt.toISOString(),
    is_read: m.isRead,
    has_otp: m.hasOtp,
    raw_size: m.rawSize,
    link_count: m.linkCount,
    attachment_count: m.attachmentCount,
  };
}

export function messageView(m: MessageRow) {
  return {
    ...summaryView(m),
    to_address: m.toAddress,
    body_text: m.bodyText,
    body_html: m.bodyHtml,
    links: m.links ?? [],
    attachments: m.attachments,
    otp_detected: m.otp,
    headers: m.headers,
  };
}
