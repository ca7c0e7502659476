// A plain TCP client for hostile-input tests: writes whatever bytes it is given, keeps everything the server
// sends, and knows when the server closed. No protocol at all, so nothing is "fixed up" on the way out.
import { connect, type Socket } from 'node:net';

export interface RawConnection {
  socket: Socket;
  /** Everything received so far, as latin1 text. */
  received(): string;
  /** Resolves once `text` has been received (rejects if the connection closes first). */
  until(text: string | RegExp): Promise<string>;
  /** Resolves once the connection is closed, whoever closed it. */
  closed: Promise<void>;
  write(data: string | Buffer): void;
}

/** A raw TCP connection, connected; from `localAddress` when given (another 127/8 address: another client). */
export function rawConnect(port: number, host = '127.0.0.1', localAddress?: string): Promise<RawConnection> {
  const socket = connect({ port, host, ...(localAddress ? { localAddress } : {}) });
  let text = '';
  let isClosed = false;
  const watchers = new Set<() => void>();
  // Errors (a reset by the server) end the connection like a close; the test looks at what came before.
  socket.on('error', () => undefined);
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
    for (const watch of watchers) watch();
  });
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      isClosed = true;
      for (const watch of watchers) watch();
      resolve();
    }),
  );
  const until: RawConnection['until'] = (wanted) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = typeof wanted === 'string' ? text.includes(wanted) : wanted.test(text);
        if (found) {
          watchers.delete(check);
          resolve(text);
        } else if (isClosed) {
          watchers.delete(check);
          reject(new Error(`closed before ${String(wanted)}; received: ${text.slice(-500)}`));
        }
      };
      watchers.add(check);
      check();
    });
  return new Promise((resolve, reject) => {
    socket.once('connect', () =>
      resolve({ socket, received: () => text, until, closed, write: (data) => void (socket.writable && socket.write(data)) }),
    );
    socket.once('error', reject);
  });
}
