// The OpenAPI documents of both APIs, made the way the running program makes them: each app is built by its
// service's factory with the settings' defaults, and asked for its document. Building an app reads and
// writes nothing, so no database is needed: the pool and the mail app's LISTEN connection get an address
// that leads nowhere (a socket folder that does not exist; the connection attempt fails at once and is dropped
// at close), and the queue stand-in takes the `createQueue` calls the jobs app makes while it is built.
// test/dev/api-docs.test.ts checks that these documents are the ones apps on a real database serve.
import { loadConfig } from '../../config.ts';
import { buildJobsApp, JOB_SOURCES, sourceRegistry } from '../../jobs/index.ts';
import { buildMailApp } from '../../mail/index.ts';
import { createPool } from '../../platform/db/index.ts';
import type { App } from '../../platform/http/index.ts';
import { createLogger } from '../../platform/log.ts';
import type { Queue } from '../../platform/queue.ts';
import { VERSION } from '../../roles.ts';
import type { OpenApiDocument } from './markdown.ts';

const NOWHERE = 'postgresql://domainkit@/domainkit?host=/nonexistent';

export async function openApiDocuments(): Promise<{ jobs: OpenApiDocument; mail: OpenApiDocument }> {
  // The defaults, not this shell's environment: the documents must not depend on who runs the script.
  const config = loadConfig({});
  const log = createLogger({ level: 'silent' });
  const pool = createPool(NOWHERE, log);
  const queue = { createQueue: async () => undefined } as unknown as Queue;
  try {
    const jobs = await buildJobsApp({
      pool,
      log,
      version: VERSION,
      queue,
      sources: sourceRegistry(JOB_SOURCES),
      maxDomains: config.jobs.maxDomains,
      limits: config.jobs.sources,
      reuse: { defaultMaxAgeSeconds: config.jobs.cacheMaxAgeSeconds, shared: config.jobs.cacheShared },
      publicUrl: config.jobs.publicUrl,
      allowPrivateNetwork: config.allowPrivateNetwork,
    });
    const mail = await buildMailApp({
      pool,
      log,
      version: VERSION,
      anonTtlSeconds: config.mail.anonTtlSeconds,
      databaseUrl: NOWHERE,
      ssePingSeconds: config.mail.ssePingSeconds,
      waitMaxSeconds: config.mail.waitMaxSeconds,
    });
    return { jobs: await documentOf(jobs), mail: await documentOf(mail) };
  } finally {
    await pool.end();
  }
}

async function documentOf(app: App): Promise<OpenApiDocument> {
  try {
    await app.ready();
    // A copy through JSON: exactly what GET /openapi.json sends.
    return JSON.parse(JSON.stringify(app.swagger())) as OpenApiDocument;
  } finally {
    await app.close();
  }
}
