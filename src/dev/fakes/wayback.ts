// Fake Internet Archive CDX server (docs/providers.md): JSON arrays of string arrays with a header row, `[]` for
// no match, and with showResumeKey=true an empty row then the resume key when more pages follow. A domain named
// `captures-<n>.…` has exactly n captures; others a number derived from the name. Pages hold at most
// `pageSize` rows whatever `limit` asks. The archive is free: its requests are counted (`usage()`), billed 0.
import { faultAnswer, faultOf, startFake, valueFor, type Fake, type FakeOptions } from './server.ts';

const FIRST = Date.UTC(2001, 2, 4, 5, 6, 7);
const DAY = 86_400_000;

export function captureCount(domain: string): number {
  const named = /^captures-(\d+)\./.exec(domain);
  return named ? Number(named[1]) : valueFor(domain, 'captures', 0, 1500);
}

/** The i-th capture's timestamp, yyyyMMddhhmmss (UTC): one a day from 2001-03-04 05:06:07. */
export function captureTimestamp(i: number): string {
  return new Date(FIRST + i * DAY).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

export function startWaybackFake(options: FakeOptions & { pageSize?: number } = {}): Promise<Fake> {
  const seen = new Map<string, number>();
  const pageSize = options.pageSize ?? 1000;
  return startFake((req) => {
    if (req.path !== '/cdx/search/cdx') return { status: 404, body: 'Not Found', contentType: 'text/plain' };
    const domain = req.query.get('url') ?? '';
    const fault = faultOf(domain);
    const generic = faultAnswer(fault, seen, domain);
    if (generic) return generic;
    if (fault === 'malformed') return { status: 200, body: { error: 'unexpected' } };
    const total = fault === 'nodata' ? 0 : captureCount(domain);
    if (total === 0) return { status: 200, body: [] };
    const start = Number(req.query.get('resumeKey') ?? 0);
    const limit = Math.min(Number(req.query.get('limit') ?? pageSize), pageSize);
    const end = Math.min(total, start + limit);
    const rows: string[][] = [['timestamp', 'statuscode']];
    for (let i = start; i < end; i++) rows.push([captureTimestamp(i), i % 7 === 0 ? '301' : '200']);
    if (end < total && req.query.get('showResumeKey') === 'true') rows.push([], [String(end)]);
    return { status: 200, body: rows, contentType: 'text/plain' };
  }, options);
}
