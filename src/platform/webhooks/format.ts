// The delivery log as a plain-text table for `domainkit deliveries`.
import type { LogRow } from './store.ts';

const COLUMNS = ['delivery', 'event', 'subject', 'url', 'state', 'attempt', 'at', 'result', 'ms'] as const;

export function formatDeliveryLog(rows: LogRow[]): string {
  if (rows.length === 0) return 'no deliveries\n';
  const table = rows.map((r) => [
    r.delivery_id,
    r.event,
    r.subject,
    r.url,
    r.state,
    r.attempt === null ? '-' : String(r.attempt),
    (r.started_at ?? r.created_at).toISOString(),
    r.attempt === null ? 'not attempted yet' : `${r.status_code ?? r.error ?? ''} ${r.outcome ?? ''}`.trim(),
    r.duration_ms === null ? '-' : String(r.duration_ms),
  ]);
  const widths = COLUMNS.map((c, i) => Math.max(c.length, ...table.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return `${[line(COLUMNS), ...table.map(line)].join('\n')}\n`;
}
