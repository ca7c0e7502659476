// The two ways a call fails on the API's side: an error answer (problem+json, RFC 9457), and a wait that found
// no matching message in its time. Network failures are fetch's own errors, and an aborted call rejects with the
// signal's reason, as fetch does.
import type { Problem } from './types.ts';

/** An error answer of the mail API. `code` is stable (switch on it); `detail` is for people. */
export class MailApiError extends Error {
  override readonly name = 'MailApiError';
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  /** The whole problem document, with any extra fields (`errors`, `required_tier`, …). */
  readonly problem: Problem;
  /** The server's X-Request-Id, which its log names too. */
  readonly requestId: string | null;

  constructor(problem: Problem, requestId: string | null = null) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
    this.status = problem.status;
    this.code = problem.code;
    this.detail = problem.detail;
    this.problem = problem;
    this.requestId = requestId;
  }

  /** The error of a failed response. An answer that is not problem+json (a proxy's page) gets code `unexpected_response`. */
  static async from(response: Response): Promise<MailApiError> {
    const text = await response.text();
    const requestId = response.headers.get('x-request-id');
    const parsed = parseProblem(text);
    if (parsed) return new MailApiError(parsed, requestId);
    const title = response.statusText || `HTTP ${response.status}`;
    return new MailApiError(
      { type: 'about:blank', title, status: response.status, code: 'unexpected_response', detail: text.slice(0, 200) || title },
      requestId,
    );
  }
}

function parseProblem(text: string): Problem | undefined {
  try {
    const value = JSON.parse(text) as Partial<Problem> | null;
    if (value && typeof value.code === 'string' && typeof value.status === 'number') {
      return { type: '', title: '', detail: '', ...value } as Problem;
    }
  } catch {
    // not JSON: the caller makes a problem of it
  }
  return undefined;
}

/** No message matched within the wait's time. `cursor` resumes the wait without missing anything. */
export class WaitTimeoutError extends Error {
  override readonly name = 'WaitTimeoutError';
  readonly address: string;
  readonly cursor: string | null;
  readonly timeout: number;

  constructor(address: string, timeout: number, cursor: string | null, options?: { cause?: unknown }) {
    super(`no matching message arrived in ${address} within ${timeout} ms`, options);
    this.address = address;
    this.timeout = timeout;
    this.cursor = cursor;
  }
}
