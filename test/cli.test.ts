// The `domainkit` command as an operator meets it: real processes, the embedded PostgreSQL, real sockets.
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { runCli, startCli } from './helpers/cli.ts';

const PORTS = { JOBS_PORT: '0', MAIL_PORT: '0', SMTP_PORT: '0', HOST: '127.0.0.1' };

/** A process that has exited but not yet been reaped (a zombie, state Z) counts as gone. */
function isAlive(pid: number): boolean {
  if (existsSync(`/proc/${pid}/stat`)) {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function postmaster(dataDir: string): { pid: number; port: number } | undefined {
  const file = join(dataDir, 'postgres', 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const lines = readFileSync(file, 'utf8').split('\n');
  return { pid: Number(lines[0]), port: Number(lines[3]) };
}

describe('with the embedded PostgreSQL (DATABASE_URL unset)', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'domainkit-cli-'));
    await chmod(dataDir, 0o755); // as root, postgres runs as the postgres user and must reach this folder
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('start serves both APIs and SMTP; a command run meanwhile uses the same database; Ctrl-C stops everything', async () => {
    const running = await startCli(['start'], { ...PORTS, DATA_DIR: dataDir });
    let stopped = false;
    try {
      const { 'jobs-api': jobs, 'mail-api': mail, smtp } = running.addresses;
      for (const base of [jobs, mail]) {
        expect((await fetch(`${base}/readyz`)).status).toBe(200);
      }
      expect(await smtpBanner(smtp!)).toMatch(/^220 /);

      const server = postmaster(dataDir);
      expect(server).toBeDefined();
      const migrate = await runCli(['migrate'], { DATA_DIR: dataDir });
      expect(migrate.code, migrate.stderr).toBe(0);
      expect(migrate.stdout).toContain(`embedded PostgreSQL on 127.0.0.1:${server!.port} (pid ${server!.pid}, already running)`);
      expect(migrate.stdout).toContain('migrations: none pending');
      // The command left the service's database running.
      expect(isAlive(server!.pid)).toBe(true);
      expect((await fetch(`${jobs}/readyz`)).status).toBe(200);

      const code = await running.stop('SIGINT');
      stopped = true;
      expect(code).toBe(0);
      expect(isAlive(server!.pid)).toBe(false);
      expect(postmaster(dataDir)).toBeUndefined();
      expect(running.output()).toContain('embedded PostgreSQL stopped');
    } finally {
      if (!stopped) await running.stop('SIGKILL');
    }
  });

  it('a command with no service running starts the database itself and stops it when done', async () => {
    expect(postmaster(dataDir)).toBeUndefined();
    const result = await runCli(['migrate'], { DATA_DIR: dataDir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/embedded PostgreSQL on 127\.0\.0\.1:\d+ \(pid \d+, started for this command\)/);
    const pid = Number(/pid (\d+)/.exec(result.stdout)![1]);
    expect(isAlive(pid)).toBe(false);
    expect(postmaster(dataDir)).toBeUndefined();
  });

  it('after a crash, the next start adopts the orphaned database and stops it on Ctrl-C', async () => {
    const crashed = await startCli(['start'], { ...PORTS, DATA_DIR: dataDir });
    await crashed.stop('SIGKILL');
    const orphan = postmaster(dataDir);
    expect(orphan && isAlive(orphan.pid)).toBe(true); // postgres runs in its own session and survives us

    const next = await startCli(['start'], { ...PORTS, DATA_DIR: dataDir });
    expect(next.output()).toMatch(/"adopted":true/);
    expect((await fetch(`${next.addresses['jobs-api']}/readyz`)).status).toBe(200);
    expect(await next.stop('SIGINT')).toBe(0);
    expect(isAlive(orphan!.pid)).toBe(false);
    expect(postmaster(dataDir)).toBeUndefined();
  });
});

describe('roles against one DATABASE_URL', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase({ empty: true });
  });
  afterAll(async () => {
    await db.pool.end();
  });

  it('jobs-api, mail-api, smtp and worker run as separate processes, migrating once between them', async () => {
    const env = { ...PORTS, DATABASE_URL: db.url };
    const roles = ['jobs-api', 'mail-api', 'smtp', 'worker'];
    const started = await Promise.all(roles.map((role) => startCli([role], env)));
    try {
      const [jobs, mail, smtp, worker] = started;
      expect(Object.keys(jobs!.addresses)).toEqual(['jobs-api']);
      expect(Object.keys(mail!.addresses)).toEqual(['mail-api']);
      expect(Object.keys(smtp!.addresses)).toEqual(['smtp']);
      expect(worker!.addresses).toEqual({});
      expect((await fetch(`${jobs!.addresses['jobs-api']}/readyz`)).status).toBe(200);
      expect((await fetch(`${mail!.addresses['mail-api']}/readyz`)).status).toBe(200);
      const applied = await db.pool.query('SELECT name, count(*)::int AS n FROM pgmigrations GROUP BY name');
      expect(applied.rows.length).toBeGreaterThan(0);
      expect(applied.rows.every((r: { n: number }) => r.n === 1)).toBe(true);
    } finally {
      const codes = await Promise.all(started.map((p) => p.stop('SIGTERM')));
      expect(codes).toEqual([0, 0, 0, 0]);
    }
  });
});

function smtpBanner(address: string): Promise<string> {
  const { hostname, port } = new URL(address);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    socket.once('data', (d) => {
      socket.end('QUIT\r\n');
      resolve(d.toString());
    });
    socket.on('error', reject);
  });
}
