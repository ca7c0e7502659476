// Servers a benchmark runs as processes of their own: started with a log file each, stopped gracefully at the
// end (or on Ctrl-C, with the scratch database), their logs kept only when the run failed.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Processes {
  /** Starts `node args…` with exactly `env`. */
  start(name: string, args: string[], env: Record<string, string | undefined>): ChildProcess;
  /** Stops one of them before the end (SIGINT, SIGKILL after 15 s). */
  stop(child: ChildProcess): Promise<void>;
  /** A path removed at the end (scratch directories). */
  remove(path: string): void;
  /** Stops every process, runs `last` (closing pools, the database), removes scratch paths; once. */
  cleanup(): Promise<void>;
  /** Marks the run failed: the logs stay, and their paths are printed. */
  fail(): void;
}

export function benchProcesses(bench: string, last: () => Promise<void>): Processes {
  const started: { name: string; child: ChildProcess; logFile: string }[] = [];
  const stopping = new Set<ChildProcess>();
  const scratch: string[] = [];
  let failed = false;
  let cleaning: Promise<void> | undefined;

  /** SIGINT (a graceful stop), SIGKILL after 15 s. */
  async function stop(child: ChildProcess): Promise<void> {
    stopping.add(child);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }

  const processes: Processes = {
    start(name, args, env) {
      const logFile = join(tmpdir(), `domainkit-bench-${bench}-${name}-${process.pid}.log`);
      const out = openSync(logFile, 'w');
      const child = spawn(process.execPath, args, { env, stdio: ['ignore', out, out] });
      started.push({ name, child, logFile });
      child.once('exit', (code, signal) => {
        if (!stopping.has(child)) console.error(`${name} exited unexpectedly (${code ?? signal}); see ${logFile}`);
      });
      return child;
    },
    stop,
    remove(path) {
      scratch.push(path);
    },
    cleanup() {
      cleaning ??= (async () => {
        await Promise.all(started.map((s) => stop(s.child)));
        await last();
        if (!failed) scratch.push(...started.map((s) => s.logFile));
        await Promise.all(scratch.map((path) => rm(path, { recursive: true, force: true })));
      })();
      return cleaning;
    },
    fail() {
      failed = true;
      for (const s of started) console.error(`  ${s.name} log: ${s.logFile}`);
    },
  };
  // Interrupted: the servers and the scratch database go too.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void processes.cleanup().finally(() => process.exit(130)));
  }
  return processes;
}

export async function waitForHttp(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer 200 within 30 s`);
}

/** VmHWM: the peak resident set size of a (Linux) process, in MB. */
export function peakRss(pid: number): number {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmHWM for process ${pid}`);
  return Math.round((Number(match[1]) / 1024) * 10) / 10;
}

/** A fresh anonymous inbox on `domain` through the mail API. */
export async function generateInbox(base: string, domain: string): Promise<string> {
  const res = await fetch(`${base}/api/v1/inboxes/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ domain }),
  });
  const body = (await res.json()) as { address?: string };
  if (res.status !== 201 || !body.address) throw new Error(`POST /api/v1/inboxes/generate: ${res.status} ${JSON.stringify(body)}`);
  return body.address;
}
