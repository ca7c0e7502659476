// A bare SMTP dialogue over a socket, for tests that assert on reply codes (a library client would hide them).
import { connect, type Socket } from 'node:net';

export interface Reply {
  code: number;
  /** Every line of the reply joined with \n, codes included. */
  text: string;
}

export interface SmtpDialogue {
  greeting: Reply;
  /** Sends a command line and resolves with its reply. */
  command(line: string): Promise<Reply>;
  /** DATA, then the message (dot-stuffed here) and the final dot; resolves with the reply to DATA when not 354, else to the message. */
  data(raw: Buffer | string): Promise<Reply>;
  /** Writes bytes as they are (e.g. a PROXY header before the greeting is read). */
  write(bytes: string): void;
  close(): void;
}

export async function dialogue(port: number, host = '127.0.0.1', options: { before?: string } = {}): Promise<SmtpDialogue> {
  const socket: Socket = connect(port, host);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  if (options.before) socket.write(options.before);
  let buffered = '';
  let waiting: { resolve(reply: Reply): void; reject(err: Error): void } | undefined;
  let lines: string[] = [];
  socket.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('latin1');
    let end: number;
    while ((end = buffered.indexOf('\r\n')) >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      lines.push(line);
      // The last line of a reply has a space (or nothing) after the code; the others a hyphen.
      if (line[3] !== '-') {
        const reply = { code: Number(line.slice(0, 3)), text: lines.join('\n') };
        lines = [];
        const current = waiting;
        waiting = undefined;
        current?.resolve(reply);
      }
    }
  });
  socket.on('close', () => waiting?.reject(new Error('connection closed before a reply')));
  socket.on('error', () => undefined); // a reset shows as the close above
  const next = () => new Promise<Reply>((resolve, reject) => (waiting = { resolve, reject }));
  const greeting = await next();
  return {
    greeting,
    command(line) {
      const reply = next();
      socket.write(`${line}\r\n`);
      return reply;
    },
    async data(raw) {
      const go = next();
      socket.write('DATA\r\n');
      const started = await go;
      if (started.code !== 354) return started;
      const text = Buffer.isBuffer(raw) ? raw.toString('latin1') : raw;
      const body = text.endsWith('\r\n') ? text : `${text}\r\n`;
      const reply = next();
      socket.write(Buffer.from(`${body.replace(/^\./gm, '..')}.\r\n`, 'latin1'));
      return reply;
    },
    write: (bytes) => socket.write(bytes),
    close: () => socket.destroy(),
  };
}
