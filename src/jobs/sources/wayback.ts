// wayback: captures of a domain's root URL from the Internet Archive's CDX server (docs/providers.md), counted
// over every resume-key page. The archive blocks clients that ignore its limits, so the engine's shared gate
// (one in flight, 0.4 requests/s) paces each page, and a refused connection holds every worker for a minute.
import { Type } from 'typebox';
import type { Outbound } from '../../platform/net/index.ts';
import { FREE, Tally } from './cost.ts';
import type { SourceDescriptor } from './descriptor.ts';
import type { FetchContext, Outcome, SourceAdapter } from './source.ts';
import { byStatus, call, fail, isFailure, parseBody } from './upstream.ts';

const PAGE_LIMIT = 5000;
/** Captures kept in `raw` (a busy site has hundreds of thousands); the count covers them all. */
const RAW_CAPTURES = 10_000;
const Reply = Type.Array(Type.Array(Type.String()));
const STAMP = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/;

interface WaybackSettings {
  baseUrl: string;
}

export const wayback: SourceDescriptor<WaybackSettings> = {
  name: 'wayback',
  provider: 'wayback',
  batchSize: 1,
  columns: [
    { name: 'snapshot_count', type: 'bigint' },
    { name: 'first_snapshot_at', type: 'timestamptz' },
    { name: 'last_snapshot_at', type: 'timestamptz' },
  ],
  // The archive blocks clients that go faster than about 24 requests a minute.
  defaults: { concurrency: 1, rate: 0.4 },
  // No credentials: nobody's account pays. One request per page of up to 5,000 captures.
  billing: { ...FREE, requests: { count: 1, per: 'page' } },
  readSettings: (read) => ({ baseUrl: read.url('WAYBACK_BASE_URL', 'https://web.archive.org') }),
  createAdapter: (settings, deps) => waybackAdapter(settings, deps.providerHttp),
};

export function waybackAdapter(settings: WaybackSettings, http: Outbound): SourceAdapter {
  async function one(domain: string, context: FetchContext, tally: Tally): Promise<Outcome> {
    const pages: { captures: number; resume_key: string | null }[] = [];
    const captures: string[][] = [];
    let count = 0;
    let first: string | undefined;
    let last: string | undefined;
    let resumeKey: string | undefined;
    do {
      const url = new URL('/cdx/search/cdx', settings.baseUrl);
      url.search = new URLSearchParams({
        url: domain,
        output: 'json',
        fl: 'timestamp,statuscode',
        gzip: 'false',
        limit: String(PAGE_LIMIT),
        showResumeKey: 'true',
        ...(resumeKey ? { resumeKey } : {}),
      }).toString();
      await context.permit();
      const res = await call(http, url.toString(), { signal: context.signal });
      tally.request(isFailure(res) ? undefined : res);
      if (isFailure(res)) {
        // A refused connection is how a blocked client meets the archive: stop everyone for a minute.
        return res.message.includes('ECONNREFUSED') ? { ...res, transient: { retryAfterMs: 60_000 } } : res;
      }
      const refused = byStatus(res, 'the Wayback Machine');
      if (refused) return refused;
      const parsed = parseBody('the Wayback Machine', res.text, Reply);
      if (!parsed.ok) return parsed;
      const rows = parsed.value;
      resumeKey = undefined;
      // [header, ...captures] then, when more pages follow, [] and [resume key].
      let end = rows.length;
      if (end >= 2 && rows[end - 2]!.length === 0 && rows[end - 1]!.length === 1) {
        resumeKey = rows[end - 1]![0];
        end -= 2;
      }
      const body = rows.slice(rows.length > 0 && rows[0]![0] === 'timestamp' ? 1 : 0, end);
      for (const row of body) {
        const stamp = row[0] ?? '';
        if (!STAMP.test(stamp))
          return fail(
            'upstream_bad_response',
            `the Wayback Machine sent a capture without a valid timestamp (${JSON.stringify(row)})`,
            rows,
          );
        if (!first || stamp < first) first = stamp;
        if (!last || stamp > last) last = stamp;
        if (captures.length < RAW_CAPTURES) captures.push(row);
      }
      count += body.length;
      pages.push({ captures: body.length, resume_key: resumeKey ?? null });
    } while (resumeKey);
    return {
      ok: true,
      columns: { snapshot_count: count, first_snapshot_at: iso(first), last_snapshot_at: iso(last) },
      raw: { pages, captures, truncated: count > captures.length },
    };
  }
  // Free, but its requests are counted: a page each.
  const metered = async (domain: string, context: FetchContext): Promise<Outcome> => {
    const tally = new Tally(FREE);
    return { ...(await one(domain, context, tally)), spend: tally.spend };
  };
  return { fetch: (domains, context) => Promise.all(domains.map((d) => metered(d, context))) };
}

function iso(stamp: string | undefined): string | null {
  const m = stamp ? STAMP.exec(stamp) : null;
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.000Z` : null;
}
