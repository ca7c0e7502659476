// Runs the real `domainkit` command (src/cli.ts under Node's type stripping) as a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A minimal environment: nothing of the developer's shell (DATABASE_URL, ports) leaks into the child. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'info', ...env };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: childEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`domainkit ${args.join(' ')} timed out\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface RunningCli {
  child: ChildProcess;
  addresses: Record<string, string>;
  output(): string;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  timeoutMs?: number;
  /** Another script than src/cli.ts (an installed package's bin), run in `cwd`. */
  script?: string;
  cwd?: string;
  /** Options for node itself (V8's), before the script. */
  nodeArgs?: string[];
}

/** Starts a long-running command and resolves once it logs `ready` (with the addresses it bound). */
export function startCli(args: string[], env: Record<string, string>, options: StartOptions = {}): Promise<RunningCli> {
  const { timeoutMs = 60_000, script = CLI, cwd = ROOT, nodeArgs = [] } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, script, ...args], { cwd, env: childEnv(env) });
    let output = '';
    let buffered = '';
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`domainkit ${args.join(' ')} not ready in time:\n${output}`));
    }, timeoutMs);
    child.stderr.on('data', (d: Buffer) => (output += d));
    child.stdout.on('data', (d: Buffer) => {
      output += d;
      buffered += d;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const entry = parse(line);
        if (entry?.msg === 'ready') {
          clearTimeout(timer);
          resolve({
            child,
            addresses: entry.addresses as Record<string, string>,
            output: () => output,
            stop: (signal = 'SIGINT') => {
              child.kill(signal);
              return exited;
            },
          });
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`domainkit ${args.join(' ')} exited with ${code} before ready:\n${output}`));
    });
  });
}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
