// Boots an app on an ephemeral port for black-box tests over a real socket.
import { type App, createApp } from '../../src/platform/http/index.ts';
import { createLogger } from '../../src/platform/log.ts';

type AppOptions = Parameters<typeof createApp>[0];

/** An app of the platform's factory with placeholder titles (silent log): for tests of what every app does. */
export function bareApp(options: Pick<AppOptions, 'pool'> & Partial<AppOptions>): Promise<App> {
  return createApp({
    title: 't',
    description: 't',
    version: '0',
    log: createLogger({ level: 'silent' }),
    routes: async () => {},
    ...options,
  });
}

export interface Served {
  app: App;
  url: string;
  close(): Promise<void>;
}

export async function serve(app: App, port = 0): Promise<Served> {
  const url = await app.listen({ host: '127.0.0.1', port });
  return { app, url, close: () => app.close() };
}

/** Asserts the common problem+json shape and returns the parsed body. */
export async function problemOf(response: Response): Promise<Record<string, unknown> & { code: string; status: number }> {
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('application/problem+json')) {
    throw new Error(`expected application/problem+json, got ${type}: ${await response.text()}`);
  }
  const body = (await response.json()) as Record<string, unknown> & { code: string; status: number };
  for (const key of ['type', 'title', 'status', 'detail', 'code']) {
    if (!(key in body)) throw new Error(`problem body lacks ${key}: ${JSON.stringify(body)}`);
  }
  if (body.status !== response.status) throw new Error(`body status ${body.status} != HTTP ${response.status}`);
  return body;
}
