#!/usr/bin/env node
// The `domainkit` command. It checks the Node.js version before it imports anything else, so an old Node.js
// gets one line naming the version needed instead of a TypeError from deep inside a dependency. This file
// stays plain JavaScript that any Node.js can parse; the version needed is package.json's `engines.node`.
import { existsSync, readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const needed = /^>=\s*(\d+)\.(\d+)/.exec(pkg.engines.node);
const [major, minor] = process.versions.node.split('.').map(Number);
const wantMajor = Number(needed[1]);
const wantMinor = Number(needed[2]);
if (major < wantMajor || (major === wantMajor && minor < wantMinor)) {
  process.stderr.write(
    `domainkit: Node.js ${process.versions.node} is too old: Node.js ${wantMajor}.${wantMinor} or newer is needed (24 LTS recommended)\n`,
  );
  process.exit(2);
}
const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('domainkit: not built yet: run `npm run build` (it needs the development dependencies)\n');
  process.exit(2);
}
import(cli.href);
