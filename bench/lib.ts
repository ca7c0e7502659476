// Shared by the benchmarks: a scratch embedded PostgreSQL, percentiles, and writing results.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { acquireEmbedded, migrate } from '../src/platform/db/index.ts';
import { createLogger } from '../src/platform/log.ts';

export const log = createLogger({ level: 'warn' }, process.stderr);

/** A fresh embedded PostgreSQL with production settings (durability on), migrated. */
export async function scratchDatabase(): Promise<{ url: string; release(): Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'domainkit-bench-'));
  await chmod(dataDir, 0o755);
  const server = await acquireEmbedded({ dataDir, log });
  const url = server.url();
  await migrate(url, log);
  return {
    url,
    async release() {
      await server.release();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

export async function writeResult(name: string, result: Record<string, unknown>): Promise<void> {
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  await mkdir(dir, { recursive: true });
  const record = { benchmark: name, at: new Date().toISOString(), node: process.version, cpus: cpus().length, ...result };
  await writeFile(join(dir, `${name}.json`), JSON.stringify(record, null, 2) + '\n');
  console.log(JSON.stringify(record, null, 2));
}

/** A port nothing listens on right now (for a server to take, or to be refused on). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
