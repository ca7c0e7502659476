// One long-polling wait (GET /api/v1/inboxes/{address}/wait): its cursor, its filters, and what it has seen of
// the inbox so far. It is told of messages from two sides, the look at the table after its cursor (a "scan")
// and the notifications of messages stored meanwhile, in any order; it keeps the oldest match and answers
// only once no scan is under way, so a newer match heard of first never wins over an older one still unread.
import type { LiveInbox, MessageRow, WaitCandidate } from '../store/index.ts';

/** The cursor of a wait that starts before any message: every message of the inbox is newer. */
export const NIL_UUID = '00000000-0000-0000-0000-000000000000';

export interface WaitFilters {
  /** Case-insensitive substring of the sender's address. */
  from?: string | undefined;
  /** Case-insensitive substring of the subject. */
  subject?: string | undefined;
  /** The tag, exactly (tags are stored lower-cased). */
  tag?: string | undefined;
  hasOtp?: boolean | undefined;
  /** The message has a link of this kind. */
  linkKind?: string | undefined;
}

/**
 * How a wait ended: a message; nothing until the deadline (with the cursor to call again with); the client left;
 * or the database could not be read (the client calls again with its cursor).
 */
export type WaitOutcome =
  | { status: 'message'; message: MessageRow }
  | { status: 'timeout'; cursor: string }
  | { status: 'gone' }
  | { status: 'unavailable' };

/** A PostgreSQL snapshot (`xmin:xmax:xip,…`): the transactions whose rows a statement could see. */
export interface Snapshot {
  xmin: bigint;
  xmax: bigint;
  inProgress: Set<bigint>;
}

export function parseSnapshot(text: string): Snapshot {
  const [xmin, xmax, xip] = text.split(':');
  return { xmin: BigInt(xmin!), xmax: BigInt(xmax!), inProgress: new Set((xip ? xip.split(',') : []).map(BigInt)) };
}

/** Whether a statement with this snapshot saw the rows of that transaction (null: stored before xids were kept). */
export function sawIt(snapshot: Snapshot, storedBy: string | null): boolean {
  if (storedBy === null) return true;
  const xid = BigInt(storedBy);
  if (xid < snapshot.xmin) return true;
  return xid < snapshot.xmax && !snapshot.inProgress.has(xid);
}

export function matches(filters: WaitFilters, c: WaitCandidate): boolean {
  if (filters.from !== undefined && !c.fromAddress.toLowerCase().includes(filters.from.toLowerCase())) return false;
  if (filters.subject !== undefined && !c.subject.toLowerCase().includes(filters.subject.toLowerCase())) return false;
  if (filters.tag !== undefined && c.tag !== filters.tag.toLowerCase()) return false;
  if (filters.hasOtp !== undefined && c.hasOtp !== filters.hasOtp) return false;
  if (filters.linkKind !== undefined && !c.linkKinds.includes(filters.linkKind)) return false;
  return true;
}

/** Whether the filters look at what extraction found (and so need it up to date). */
export function needsExtraction(filters: WaitFilters): boolean {
  return filters.hasOtp !== undefined || filters.linkKind !== undefined;
}

export class Waiter {
  readonly inbox: LiveInbox;
  readonly filters: WaitFilters;
  /**
   * No `after` was given: the wait is for the messages its first look at the inbox could not see, whatever their
   * id (a receiver may commit an older id later). That look's snapshot tells them apart; a notification can come
   * after the wait was registered for a message committed before it, and the snapshot sees that one.
   */
  readonly fromNow: boolean;
  /** What the first look saw (waits without `after`). */
  private snapshot: Snapshot | undefined;
  /** Where the wait starts: the `after` given, or (found by the first scan) the inbox's newest message then. */
  cursor: string | undefined;
  /** Every message after the cursor up to this one has been looked at (and did not match). */
  through: string | undefined;
  /** The newest message heard of by notification that did not match. */
  private heard: string | undefined;
  /** A scan is queued or running: no answer until it is done. */
  scan: 'none' | 'queued' | 'running' = 'none';
  /** A look was asked for while a scan ran (the LISTEN connection was lost, a read failed): look again after it. */
  rescan = false;
  /** The first scan is done: from then on the deadline answers at once. */
  started = false;
  /** The deadline passed before the first scan was done. */
  expired = false;
  /** The oldest match seen. */
  match: WaitCandidate | undefined;
  /** Its message is being read for the answer. */
  loading = false;
  done = false;
  /** Notifications heard before the cursor was known. */
  private early: WaitCandidate[] = [];
  private readonly finish: (outcome: WaitOutcome) => void;

  constructor(inbox: LiveInbox, after: string | undefined, filters: WaitFilters, finish: (outcome: WaitOutcome) => void) {
    this.inbox = inbox;
    this.filters = filters;
    this.fromNow = after === undefined;
    this.cursor = after;
    this.through = after;
    this.finish = finish;
  }

  /** A message of the inbox, from a scan or a notification. */
  offer(c: WaitCandidate, fromScan: boolean): void {
    if (this.done) return;
    if (this.cursor === undefined) {
      this.early.push(c);
      return;
    }
    if (this.fromNow && !fromScan ? this.snapshot !== undefined && sawIt(this.snapshot, c.storedBy) : c.id <= this.cursor) return;
    if (matches(this.filters, c)) {
      if (!this.match || c.id < this.match.id) this.match = c;
    } else if (fromScan) {
      if (c.id > this.through!) this.through = c.id;
    } else if (this.heard === undefined || c.id > this.heard) {
      this.heard = c.id;
    }
  }

  /** The cursor is known (no `after`: the inbox's newest message when the scan ran, or NIL_UUID, and its snapshot). */
  begin(cursor: string, snapshot?: Snapshot): void {
    this.cursor = cursor;
    this.snapshot = snapshot;
    this.through = cursor;
    const early = this.early;
    this.early = [];
    for (const c of early) this.offer(c, false);
  }

  /**
   * The cursor a timeout answers: the newest message looked at. While a scan is under way only what it has
   * covered counts; after it, notified messages too (each stored after the scan's snapshot, or seen by it).
   */
  timeoutCursor(): string {
    const through = this.through ?? NIL_UUID;
    if (this.scan !== 'none' || this.heard === undefined || this.heard < through) return through;
    return this.heard;
  }

  end(outcome: WaitOutcome): void {
    if (this.done) return;
    this.done = true;
    this.finish(outcome);
  }
}
