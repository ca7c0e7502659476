// Waiting for a message: the server's wait route answers within a bounded time (at most MAIL_WAIT_MAX_SECONDS),
// so a longer wait is a series of calls, each resuming from the cursor the previous answer gave. A cursor is the
// id of the newest message the server has looked at, so nothing that arrives between two calls is missed.
import { MailApiError, WaitTimeoutError } from './errors.ts';
import { segment, type Http } from './http.ts';
import type { LinkKind, WaitAnswer, WaitMessage, WaitQuery } from './types.ts';

/** The kinds of links the server tells apart, as values (the document gives them as a type). */
export const LINK_KINDS = ['verify', 'magic_link', 'reset', 'unsubscribe', 'invite', 'other'] as const satisfies readonly LinkKind[];
/** Compiles only while the list is whole: a kind the document adds and the list lacks is an error here. */
export type LinkKindsListed = Unlisted<Exclude<LinkKind, (typeof LINK_KINDS)[number]>>;
type Unlisted<T extends never> = T;

/** The cursor meaning "from the beginning": any message of the inbox. */
export const BEGINNING = '00000000-0000-0000-0000-000000000000';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_POLL_SECONDS = 25;
/** How long past the wait's own end a call may take before it counts as hung (a proxy that holds it). */
const GRACE_MS = 10_000;
/** The pause before asking again after a 503. */
const RETRY_MS = 1000;

export interface WaitOptions {
  /**
   * Only messages newer than this one (a message id, or BEGINNING for any message of the inbox). When omitted the
   * client picks: after the last message a wait of this client returned from the inbox, else BEGINNING for an
   * inbox this client made, else only messages that arrive from now on.
   */
  after?: string;
  /** The whole wait, in milliseconds (30 s by default), counted in whole seconds; then WaitTimeoutError. */
  timeout?: number;
  /** The sender's address contains this (any case). */
  from?: string;
  /** The subject contains this (any case). */
  subject?: string;
  /** The message was sent to `name+tag@domain` with this tag. */
  tag?: string;
  /** The message has (true) or has not (false) a one-time code. */
  hasOtp?: boolean;
  /** The message has a link of this kind (the answer's `link` is then its first one). */
  linkKind?: LinkKind;
  signal?: AbortSignal;
}

export interface WaitPlan {
  address: string;
  /** The first call's cursor; undefined: from now on. */
  after: string | undefined;
  options: WaitOptions;
  /** The longest single call, lowered here when the server refuses it. */
  limits: { pollSeconds: number };
  /** Whether an answered message is the one wanted; otherwise the wait goes on after it. */
  accept?: (answer: WaitMessage) => boolean;
}

export async function waitLoop(http: Http, plan: WaitPlan): Promise<WaitMessage> {
  const { address, options } = plan;
  const timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
  const deadline = Date.now() + timeout;
  // Beyond the caller's signal, one that ends a call hung past the wait's end (the server always answers by then).
  const hung = AbortSignal.timeout(timeout + GRACE_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, hung]) : hung;
  let after = plan.after;
  for (;;) {
    const seconds = Math.max(0, Math.min(plan.limits.pollSeconds, Math.floor((deadline - Date.now()) / 1000)));
    let answer: WaitAnswer;
    try {
      answer = await http.json<WaitAnswer>(`/api/v1/inboxes/${segment(address)}/wait`, {
        query: { ...filters(options), after, timeout: seconds },
        signal,
      });
    } catch (err) {
      if (hung.aborted && !options.signal?.aborted) throw new WaitTimeoutError(address, timeout, after ?? null, { cause: err });
      // 503: the server could not read the messages this time (its database was away); the same cursor loses nothing.
      if (err instanceof MailApiError && err.status === 503 && Date.now() + RETRY_MS < deadline) {
        await pause(RETRY_MS, signal);
        continue;
      }
      // A server whose MAIL_WAIT_MAX_SECONDS is below the calls' length: shorter calls, for this client from now on.
      if (seconds > 1 && err instanceof MailApiError && refusedTimeout(err)) {
        plan.limits.pollSeconds = Math.floor(seconds / 2);
        continue;
      }
      throw err;
    }
    after = answer.cursor;
    if (answer.status === 'message') {
      if (!plan.accept || plan.accept(answer)) return answer;
      continue; // the next call looks only at newer messages, so this loop ends
    }
    // A call that could not wait (under a second left) was the last look.
    if (seconds === 0 || Date.now() >= deadline) throw new WaitTimeoutError(address, timeout, after);
  }
}

function filters(options: WaitOptions): Omit<WaitQuery, 'after' | 'timeout'> {
  return {
    from: options.from,
    subject: options.subject,
    tag: options.tag,
    has_otp: options.hasOtp,
    link_kind: options.linkKind,
  };
}

function refusedTimeout(err: MailApiError): boolean {
  return err.status === 400 && (err.problem.errors ?? []).some((issue) => issue.location === 'query' && issue.path === '/timeout');
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      if (signal.aborted) reject(signal.reason);
      else resolve();
    }
  });
}
