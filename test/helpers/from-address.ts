// Requests and connections from a chosen loopback address (127.0.0.2, 127.0.0.3, …: Linux routes all of
// 127/8 to the host), so one test plays several clients whose addresses the server sees on the socket.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { rawConnect, type RawConnection } from './raw-socket.ts';

export interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A GET whose whole answer is read. */
export function getFrom(localAddress: string, url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { localAddress, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

export interface OpenStream {
  status: number;
  headers: IncomingMessage['headers'];
  /** The body so far (a problem's whole body once `ended`), or the stream's events as text. */
  text(): string;
  /** Resolves once the text received so far includes `wanted`. */
  until(wanted: string): Promise<void>;
  close(): void;
}

/** A GET that may stay open (an event stream): resolves with the status as soon as the headers arrive. */
export function openFrom(localAddress: string, url: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { localAddress, headers, agent: false }, (res) => {
      let text = '';
      const watchers = new Set<() => void>();
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        for (const watch of watchers) watch();
      });
      res.on('error', () => undefined);
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        text: () => text,
        until: (wanted) =>
          new Promise((done) => {
            const check = () => {
              if (!text.includes(wanted)) return;
              watchers.delete(check);
              done();
            };
            watchers.add(check);
            check();
          }),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** A raw TCP connection from `localAddress` (for SMTP sessions), connected. */
export function rawConnectFrom(localAddress: string, port: number, host = '127.0.0.1'): Promise<RawConnection> {
  return rawConnect(port, host, localAddress);
}
