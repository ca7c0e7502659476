// A real webhook receiver on a local port: answers each request as a script says and records what came.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { vi } from 'vitest';

export interface Received {
  at: number;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** How to answer the n-th request (0-based) to a path: a status, or 'hang' to never answer. */
export type Script = (path: string, n: number) => number | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  forPath(path: string): Received[];
  /** Resolves when `count` requests to `path` have arrived. */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(script: Script): Promise<Receiver> {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const n = received.filter((r) => r.path === path).length;
      received.push({ at: performance.now(), path, headers: req.headers, body: Buffer.concat(chunks) });
      const answer = script(path, n);
      if (answer === 'hang') {
        hanging.push(res);
        return;
      }
      res.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const forPath = (path: string) => received.filter((r) => r.path === path);
  return {
    url,
    received,
    forPath,
    waitFor(path, count, timeoutMs = 30_000) {
      return vi.waitFor(
        () => {
          const got = forPath(path);
          if (got.length < count) throw new Error(`receiver: ${got.length}/${count} requests to ${path}`);
          return got;
        },
        { timeout: timeoutMs, interval: 20 },
      );
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/**
 * A receiver's answer told by the path it is called on: `/seq/500,503,200/…` answers 500 to the first attempt,
 * 503 to the second and 200 from the third on (the last status repeats).
 */
export function scripted(path: string, n: number): number {
  const plan = path.split('/')[2]!.split(',');
  return Number(plan[Math.min(n, plan.length - 1)]!);
}
