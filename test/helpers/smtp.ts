// A minimal SMTP client over node:net, for tests that must know exactly which bytes went on the wire and exactly
// which reply came back (nodemailer rewrites line endings and hides the dialogue). One connection carries any
// number of transactions, one after the other; no PIPELINING, no TLS, no AUTH.
import { connect, type Socket } from 'node:net';

export interface SmtpReply {
  code: number;
  /** Every line of the reply, `250-…` continuation lines included, joined with `\n`. */
  text: string;
}

export interface Envelope {
  from: string;
  to: string[];
}

/**
 * What goes on the wire between DATA's 354 and the end, and what the server then holds as the message.
 *
 * The content is sent byte for byte (bare LFs stay bare LFs), with two SMTP rules applied (RFC 5321 4.5.2 and
 * 4.1.1.4): a `.` that starts a line is doubled (smtp-server un-doubles a dot after any LF, bare or not, so a
 * dot after a bare LF is doubled too), and the data must end with CRLF before the closing `.`: when the content
 * does not already end with CRLF, a CRLF is appended, and that CRLF is part of the message the server receives.
 * So `delivered` = content + (content ends with CRLF ? nothing : CRLF).
 */
export function dataFor(content: Buffer): { wire: Buffer; delivered: Buffer } {
  const endsWithCrlf = content.length >= 2 && content[content.length - 2] === 0x0d && content[content.length - 1] === 0x0a;
  const delivered = endsWithCrlf ? content : Buffer.concat([content, Buffer.from('\r\n')]);
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < delivered.length; i++) {
    if (delivered[i] === 0x2e && (i === 0 || delivered[i - 1] === 0x0a)) {
      parts.push(delivered.subarray(start, i), Buffer.from('.'));
      start = i; // the dot itself goes out with the next part: doubled
    }
  }
  parts.push(delivered.subarray(start), Buffer.from('.\r\n'));
  return { wire: Buffer.concat(parts), delivered };
}

/** Line endings made CRLF, as a conforming client (nodemailer, Postfix) puts a message with bare LFs on the wire. */
export function toCrlf(content: Buffer): Buffer {
  return Buffer.from(content.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1');
}

export class SmtpClient {
  private buffered = '';
  private lines: string[] = [];
  private readonly replies: SmtpReply[] = [];
  private readonly waiting: { resolve(reply: SmtpReply): void; reject(err: Error): void }[] = [];
  private failure: Error | undefined;
  private readonly socket: Socket;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new Error('connection closed')));
  }

  /** The server's greeting, as `open` read it. */
  greeting: SmtpReply = { code: 0, text: '' };

  /** Connects, reads the 220 greeting and says EHLO. */
  static async connect(port: number, host = '127.0.0.1'): Promise<SmtpClient> {
    const client = await SmtpClient.open(port, host);
    try {
      await client.expect(client.greeting, 220, 'greeting');
      await client.expect(await client.command('EHLO client.test'), 250, 'EHLO');
    } catch (err) {
      client.destroy();
      throw err;
    }
    return client;
  }

  /** Connects and reads the greeting, whatever it is; `before` is written first (e.g. a PROXY header). */
  static async open(port: number, host = '127.0.0.1', options: { before?: string } = {}): Promise<SmtpClient> {
    const socket = connect(port, host);
    socket.setNoDelay(true);
    const client = new SmtpClient(socket);
    if (options.before) socket.write(options.before);
    client.greeting = await client.reply();
    return client;
  }

  /** DATA, then the content (see dataFor): the reply to DATA when it is not 354, else the reply to the content. */
  async data(content: Buffer | string): Promise<SmtpReply> {
    const started = await this.command('DATA');
    if (started.code !== 354) return started;
    this.socket.write(dataFor(Buffer.isBuffer(content) ? content : Buffer.from(content, 'latin1')).wire);
    return this.reply();
  }

  /**
   * One transaction: MAIL FROM, RCPT TO for each recipient, DATA, the content (see dataFor). Resolves with the
   * reply that ended it: the answer to the data, or the first refusal of MAIL or of every RCPT (then RSET).
   * Rejects when the connection fails before that reply arrives: the outcome is then unknown.
   */
  async send(envelope: Envelope, content: Buffer): Promise<SmtpReply> {
    const mail = await this.command(`MAIL FROM:<${envelope.from}>`);
    if (mail.code !== 250) return this.reset(mail);
    let accepted = 0;
    let refusal: SmtpReply | undefined;
    for (const to of envelope.to) {
      const rcpt = await this.command(`RCPT TO:<${to}>`);
      if (rcpt.code === 250) accepted++;
      else refusal ??= rcpt;
    }
    if (accepted === 0) return this.reset(refusal!);
    const data = await this.command('DATA');
    if (data.code !== 354) return this.reset(data);
    this.socket.write(dataFor(content).wire);
    return this.reply();
  }

  /** QUIT, then close. */
  async quit(): Promise<void> {
    try {
      await this.command('QUIT');
    } catch {
      // closing anyway
    }
    this.socket.destroy();
  }

  destroy(): void {
    this.socket.destroy();
  }

  private async reset(reply: SmtpReply): Promise<SmtpReply> {
    await this.command('RSET');
    return reply;
  }

  private async expect(reply: SmtpReply, code: number, what: string): Promise<void> {
    if (reply.code !== code) throw new Error(`${what}: expected ${code}, got ${reply.text}`);
  }

  /** Sends one command line; resolves with its reply. */
  command(line: string): Promise<SmtpReply> {
    if (this.failure) return Promise.reject(this.failure);
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }

  private reply(): Promise<SmtpReply> {
    const ready = this.replies.shift();
    if (ready) return Promise.resolve(ready);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private onData(chunk: Buffer): void {
    this.buffered += chunk.toString('latin1');
    for (let end = this.buffered.indexOf('\r\n'); end >= 0; end = this.buffered.indexOf('\r\n')) {
      const line = this.buffered.slice(0, end);
      this.buffered = this.buffered.slice(end + 2);
      this.lines.push(line);
      // `250-…` continues a reply, `250 …` (or a bare `250`) ends it.
      if (line.length === 3 || line[3] === ' ') {
        const reply = { code: Number(line.slice(0, 3)), text: this.lines.join('\n') };
        this.lines = [];
        const waiter = this.waiting.shift();
        if (waiter) waiter.resolve(reply);
        else this.replies.push(reply);
      }
    }
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.failure);
  }
}
