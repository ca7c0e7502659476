// One PostgreSQL for the whole run: the embedded one in a scratch directory, or TEST_DATABASE_URL's server.
// Migrations run once into a template; each test file then clones it (test/helpers/db.ts).
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createTaskQueues, JOB_SOURCES } from '../src/jobs/index.ts';
import { acquireEmbedded, migrate } from '../src/platform/db/index.ts';
import { createLogger } from '../src/platform/log.ts';
import { startQueue, stopQueue } from '../src/platform/queue.ts';
import { createDeliveryQueue } from '../src/platform/webhooks/index.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
  }
}

/** Tests run src/ as is, through Node's type stripping (on by default from 22.18); the program itself needs 22.12. */
const TESTS_NEED_NODE = [22, 18] as const;

export default async function setup(project: TestProject) {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  if (major < TESTS_NEED_NODE[0] || (major === TESTS_NEED_NODE[0] && minor < TESTS_NEED_NODE[1])) {
    throw new Error(
      `npm test needs Node.js ${TESTS_NEED_NODE.join('.')} or newer (it runs src/ through type stripping); this is ${process.versions.node}`,
    );
  }
  const log = createLogger({ level: 'warn' }, process.stderr);
  let adminUrl = process.env.TEST_DATABASE_URL;
  let cleanup = async () => {};
  if (!adminUrl) {
    const dataDir = await mkdtemp(join(tmpdir(), 'domainkit-test-'));
    await chmod(dataDir, 0o755); // as root, postgres runs as the postgres user and must reach this folder
    // Durability settings off: this cluster is thrown away after the run.
    const server = await acquireEmbedded({
      dataDir,
      log,
      settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
    });
    adminUrl = server.url('postgres');
    cleanup = async () => {
      await server.release();
      await rm(dataDir, { recursive: true, force: true });
    };
  }
  const template = `domainkit_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  await admin.end();
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${template}`;
  await migrate(templateUrl.toString(), log);
  // The queue's schema and queues too, so no test file pays for installing them.
  const queue = await startQueue(templateUrl.toString(), log, { work: false });
  await createTaskQueues(
    queue,
    JOB_SOURCES.map((s) => s.name),
  );
  await createDeliveryQueue(queue);
  await stopQueue(queue);

  project.provide('pgAdminUrl', adminUrl);
  project.provide('pgTemplate', template);
  return async () => {
    if (process.env.TEST_DATABASE_URL) {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${template}`);
      await c.end();
    }
    await cleanup();
  };
}
