// Shared by the benchmarks: a scratch embedded PostgreSQL, percentiles, and writing results.
import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { acquireEmbedded, migrate } from '../src/platform/db/index.ts';
import { createLogger } from '../src/platform/log.ts';

export const log = createLogger({ level: 'warn' }, process.stderr);

/**
 * A fresh embedded PostgreSQL with production settings (durability on), migrated; `settings` adds server settings
 * a benchmark measures with (bench:wait's track_commit_timestamp).
 */
export async function scratchDatabase(settings: Record<string, string> = {}): Promise<{
  url: string;
  dataDir: string;
  /** The postmaster's: with its children, PostgreSQL's CPU (cpuSeconds). */
  pid: number;
  release(): Promise<void>;
}> {
  const dataDir = await mkdtemp(join(tmpdir(), 'domainkit-bench-'));
  await chmod(dataDir, 0o755);
  const server = await acquireEmbedded({ dataDir, log, settings });
  const url = server.url();
  await migrate(url, log);
  return {
    url,
    dataDir,
    pid: server.pid,
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
  await writeFile(join(dir, `${name}.json`), `${JSON.stringify(record, null, 2)}\n`);
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

/**
 * CPU seconds (user + system, every thread) used so far by these (Linux) processes and their direct children:
 * a figure of work done that moves less than throughput with what else the machine is running.
 */
export function cpuSeconds(pids: number[]): number {
  const ticks = 100; // USER_HZ, 100 on every Linux architecture Node runs on
  const stats = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((pid) => {
      try {
        // The fields after the command name (which may hold spaces) start at the state, field 3.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return { pid: Number(pid), ppid: Number(fields[1]), cpu: Number(fields[11]) + Number(fields[12]) };
      } catch {
        return undefined; // exited meanwhile
      }
    })
    .filter((s) => s !== undefined);
  const chosen = new Set(pids);
  return stats.filter((s) => chosen.has(s.pid) || chosen.has(s.ppid)).reduce((n, s) => n + s.cpu, 0) / ticks;
}
