// How old a reused result may be (`max_age` of a job, JOBS_CACHE_MAX_AGE of a deployment): a duration such as
// "7d" or "12h", or whole seconds; 0 fetches everything again. One parser for both, so they read alike.

/** A year: a result older than that is not "fresh" in any sense a user means. */
export const MAX_AGE_LIMIT_SECONDS = 365 * 86_400;

/** Whole seconds, or a number with one unit: s, m, h, d. */
export const MAX_AGE_PATTERN = '^[0-9]{1,9}[smhd]?$';

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** Seconds, or a one-line reason the value is not a max age. */
export function parseMaxAge(value: string | number): { ok: true; seconds: number } | { ok: false; reason: string } {
  const text = String(value).trim();
  const match = /^(\d{1,9})([smhd]?)$/.exec(text);
  if (!match) return { ok: false, reason: `${JSON.stringify(value)} is not a duration such as "7d", "12h", "30m" or whole seconds` };
  const seconds = Number(match[1]) * UNIT_SECONDS[match[2] || 's']!;
  if (seconds > MAX_AGE_LIMIT_SECONDS) return { ok: false, reason: `${JSON.stringify(value)} is over 365 days` };
  return { ok: true, seconds };
}
