// An SMTP load generator on raw sockets (node:net), the measuring instrument of bench:smtp: no SMTP library.
// Each connection says EHLO once, then runs one transaction per message (MAIL FROM, RCPT TO, DATA, the message,
// `.`), waiting for every reply (no pipelining). A message counts as accepted only on a 250 after its `.`; any
// other reply, a timeout or a dropped connection is an error. Latency is from writing the final `.` line to the
// 250.
import { connect, type Socket } from 'node:net';

export interface SmtpLoadOptions {
  host: string;
  port: number;
  connections: number;
  /** Send this many messages in all (shared by the connections)... */
  messages?: number;
  /** ...or keep sending until this many seconds have passed. */
  durationSeconds?: number;
  /** The recipient of the next message. */
  recipients(): string;
  /** The approximate size of each message, headers included. */
  messageBytes: number;
  /** MAIL FROM; default bench@load.test. */
  from?: string;
  /** A reply slower than this is an error, and ends its connection (default 30 s). */
  replyTimeoutMs?: number;
  /**
   * Told of each accepted message (its number is in its Subject: `Load test message <n>`) when its 250 is read
   * (`at`), with when its final `.` was written (`sent`): the receiver committed it in between.
   */
  onAccepted?(n: number, to: string, at: number, sent: number): void;
}

export interface SmtpLoadResult {
  accepted: number;
  errors: number;
  /** The first few errors, as `command: reply` (for the report). */
  errorSamples: string[];
  /** From the first connection attempt to the last connection done. */
  seconds: number;
  /** One per accepted message: the final `.` line written to the 250 read. */
  latenciesMs: number[];
  /** Message-IDs of the accepted messages (to check that acknowledged mail was kept). */
  acceptedIds: string[];
}

interface Reply {
  code: number;
  text: string;
}

let runs = 0;

export async function runSmtpLoad(options: SmtpLoadOptions): Promise<SmtpLoadResult> {
  if ((options.messages === undefined) === (options.durationSeconds === undefined)) {
    throw new Error('runSmtpLoad: give messages or durationSeconds, one of them');
  }
  const run = `${process.pid}.${++runs}.${Date.now()}`;
  const from = options.from ?? 'bench@load.test';
  const body = messageBody(options.messageBytes);
  const result: SmtpLoadResult = { accepted: 0, errors: 0, errorSamples: [], seconds: 0, latenciesMs: [], acceptedIds: [] };
  let next = 0;
  const started = performance.now();
  const deadline = options.durationSeconds === undefined ? Infinity : started + options.durationSeconds * 1000;
  const take = () => (performance.now() < deadline && (options.messages === undefined || next < options.messages) ? next++ : undefined);
  const fail = (what: string) => {
    result.errors++;
    if (result.errorSamples.length < 10) result.errorSamples.push(what);
  };

  async function connection(): Promise<void> {
    let session: Session;
    try {
      session = await Session.open(options.host, options.port, options.replyTimeoutMs ?? 30_000);
      expect('greeting', await session.reply(), 220);
      expect('EHLO', await session.command(`EHLO load.test`), 250);
    } catch (err) {
      fail(`connect: ${message(err)}`);
      return;
    }
    try {
      for (let n = take(); n !== undefined; n = take()) {
        const id = `<${n}.${run}@load.test>`;
        const to = options.recipients();
        let step = 'MAIL FROM';
        try {
          expect(step, await session.command(`MAIL FROM:<${from}>`), 250);
          step = 'RCPT TO';
          expect(step, await session.command(`RCPT TO:<${to}>`), 250);
          step = 'DATA';
          expect(step, await session.command('DATA'), 354);
          step = 'end of data';
          const sent = performance.now();
          const done = await session.send(Buffer.concat([Buffer.from(messageHead(n, id, from, to)), body, Buffer.from('.\r\n')]));
          expect(step, done, 250);
          const at = performance.now();
          options.onAccepted?.(n, to, at, sent);
          result.latenciesMs.push(at - sent);
          result.accepted++;
          result.acceptedIds.push(id);
        } catch (err) {
          fail(`message ${n}, ${message(err)}`);
          if (!(err instanceof ReplyError)) return; // the connection is gone
          expect('RSET', await session.command('RSET'), 250);
        }
      }
      await session.command('QUIT').catch(() => undefined);
    } catch (err) {
      fail(message(err));
    } finally {
      session.close();
    }
  }

  await Promise.all(Array.from({ length: options.connections }, connection));
  result.seconds = (performance.now() - started) / 1000;
  return result;
}

/** Resolves on the 220 greeting of an SMTP server at host:port, retrying until timeoutMs. */
export async function waitForSmtp(host: string, port: number, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const session = await Session.open(host, port, 2000);
      try {
        expect('greeting', await session.reply(), 220);
        await session.command('QUIT').catch(() => undefined);
        return;
      } finally {
        session.close();
      }
    } catch (err) {
      if (Date.now() > until) throw new Error(`no SMTP greeting from ${host}:${port}: ${message(err)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

class ReplyError extends Error {}

function expect(step: string, reply: Reply, code: number): void {
  if (reply.code !== code) throw new ReplyError(`${step}: ${reply.code} ${reply.text}`);
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** One SMTP connection: replies are read whole (continuation lines `250-...` included), one at a time. */
class Session {
  private buffered = '';
  private lines: string[] = [];
  private waiting: { resolve(reply: Reply): void; reject(err: Error): void; timer: NodeJS.Timeout } | undefined;
  private broken: Error | undefined;
  private readonly socket: Socket;
  private readonly timeoutMs: number;

  private constructor(socket: Socket, timeoutMs: number) {
    this.socket = socket;
    this.timeoutMs = timeoutMs;
    socket.setNoDelay(true);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => this.receive(chunk));
    socket.on('error', (err) => this.break(err));
    socket.on('close', () => this.break(new Error('connection closed')));
  }

  static open(host: string, port: number, timeoutMs: number): Promise<Session> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      const timer = setTimeout(() => socket.destroy(new Error('connect timeout')), timeoutMs);
      socket.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new Session(socket, timeoutMs));
      });
    });
  }

  command(line: string): Promise<Reply> {
    return this.send(`${line}\r\n`);
  }

  send(data: string | Buffer): Promise<Reply> {
    const reply = this.reply();
    this.socket.write(data);
    return reply;
  }

  /** The next whole reply from the server. */
  reply(): Promise<Reply> {
    if (this.broken) return Promise.reject(this.broken);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.socket.destroy();
        this.break(new Error(`no reply within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.waiting = { resolve, reject, timer };
      this.deliver();
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private receive(chunk: string): void {
    this.buffered += chunk;
    for (let end = this.buffered.indexOf('\r\n'); end >= 0; end = this.buffered.indexOf('\r\n')) {
      this.lines.push(this.buffered.slice(0, end));
      this.buffered = this.buffered.slice(end + 2);
    }
    this.deliver();
  }

  /** A reply ends on a line whose fourth character is not `-`. */
  private deliver(): void {
    if (!this.waiting) return;
    const last = this.lines.findIndex((line) => line[3] !== '-');
    if (last < 0) return;
    const lines = this.lines.splice(0, last + 1);
    const { resolve, timer } = this.waiting;
    this.waiting = undefined;
    clearTimeout(timer);
    resolve({ code: Number(lines[0]!.slice(0, 3)), text: lines.map((l) => l.slice(4)).join('\n') });
  }

  private break(err: Error): void {
    this.broken ??= err;
    if (!this.waiting) return;
    const { reject, timer } = this.waiting;
    this.waiting = undefined;
    clearTimeout(timer);
    reject(this.broken);
  }
}

const BOUNDARY = '=_bench_alternative_boundary';

function messageHead(n: number, id: string, from: string, to: string): string {
  return [
    `From: Load Generator <${from}>`,
    `To: <${to}>`,
    `Subject: Load test message ${n}`,
    `Message-ID: ${id}`,
    `Date: ${new Date().toUTCString().replace('GMT', '+0000')}`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/alternative; boundary="${BOUNDARY}"`,
    '',
    '',
  ].join('\r\n');
}

/**
 * The body shared by every message: a text/plain and a text/html part, together about `bytes` (less the
 * headers), lines under 78 characters, dot-stuffed and ready for DATA (the final `.` line is not included).
 */
function messageBody(bytes: number): Buffer {
  const words = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore'.split(' ');
  const line = (i: number) => Array.from({ length: 10 }, (_, w) => words[(i + w * 7) % words.length]).join(' ');
  const budget = Math.max(0, bytes - 400); // the headers take about 400 bytes
  const textLines = ['Hello,', '', 'your one-time code is 482913.', '.a line that starts with a dot (dot-stuffed on the wire)', ''];
  const htmlLines = ['<!doctype html>', '<html><body>', '<p>Hello,</p>', '<p>your one-time code is <b>482913</b>.</p>'];
  const size = (lines: string[]) => lines.reduce((n, l) => n + l.length + 2, 0);
  for (let i = 0; size(textLines) < budget * 0.45; i++) textLines.push(line(i));
  for (let i = 0; size(textLines) + size(htmlLines) < budget - 200; i++) htmlLines.push(`<p>${line(i + 3)}</p>`);
  htmlLines.push('<p><a href="https://example.com/confirm?token=abc">Confirm</a></p>', '</body></html>');
  const lines = [
    'This is a multi-part message in MIME format.',
    `--${BOUNDARY}`,
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 7bit',
    '',
    ...textLines,
    `--${BOUNDARY}`,
    'Content-Type: text/html; charset=utf-8',
    'Content-Transfer-Encoding: 7bit',
    '',
    ...htmlLines,
    `--${BOUNDARY}--`,
    '',
  ];
  return Buffer.from(lines.map((l) => (l.startsWith('.') ? `.${l}` : l)).join('\r\n'), 'utf8');
}
