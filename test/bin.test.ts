// `bin/domainkit.js` on a Node.js older than package.json's engines: one line naming the version found and the
// one needed, exit code 2, before anything else is imported. Run under a faked process.versions, and under a
// real old Node.js when the machine has one (Debian's Node.js 20 on the machines CI runs on).
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../bin/domainkit.js', import.meta.url));
const ENGINES: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node;

function runBin(node: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(node, args, { env: { PATH: process.env.PATH } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

/** Runs the command with process.versions.node reporting `version`. */
function underFakeVersion(version: string) {
  const fake = `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '${version}' } });`;
  return runBin(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(fake)}`, BIN, '--version']);
}

/** A Node.js binary older than the engines range on PATH or in /usr/bin, if the machine has one. */
function oldNode(): { path: string; version: string } | undefined {
  for (const path of ['/usr/bin/node', '/usr/local/bin/node']) {
    try {
      const version = execFileSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
      const [major, minor] = version.split('.').map(Number) as [number, number];
      if (major < 22 || (major === 22 && minor < 12)) return { path, version };
    } catch {
      // not there, or not runnable
    }
  }
  return undefined;
}

describe('bin/domainkit.js on an old Node.js', () => {
  it('package.json asks for Node.js 22.12 or newer', () => {
    expect(ENGINES).toBe('>=22.12');
  });

  it.each(['22.11.0', '20.19.5', '18.20.8'])('under %s: one line naming both versions, exit code 2', async (version) => {
    const { code, stdout, stderr } = await underFakeVersion(version);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`domainkit: Node.js ${version} is too old: Node.js 22.12 or newer is needed (24 LTS recommended)\n`);
  });

  it('under 22.12.0 and newer, the version check lets the command through', async () => {
    for (const version of ['22.12.0', '23.0.0', '24.11.1']) {
      const { stderr } = await underFakeVersion(version);
      expect(stderr, version).not.toContain('is too old');
    }
  });

  const old = oldNode();
  it.skipIf(!old)(`under a real old Node.js (${old?.path ?? 'none on this machine'} ${old?.version ?? ''}): the same line`, async () => {
    const { code, stderr } = await runBin(old!.path, [BIN, 'start']);
    expect(code).toBe(2);
    expect(stderr).toBe(`domainkit: Node.js ${old!.version} is too old: Node.js 22.12 or newer is needed (24 LTS recommended)\n`);
  });

  // npm itself refuses the install (.npmrc: engine-strict), with its own message, before fetching anything.
  const npmCli = process.env.npm_execpath;
  it.skipIf(!old || !npmCli)('`npm install` under a real old Node.js stops with EBADENGINE', async () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(
        old!.path,
        [npmCli!, 'install', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'],
        { cwd: root },
        (err, _out, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stderr }),
      ),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('EBADENGINE');
    expect(result.stderr).toContain('Required: {"node":">=22.12"}');
  });
});
