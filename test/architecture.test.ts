// The rules of the house, checked on every run: the services never import each other, the platform knows no
// service, a folder is entered through its index.ts, and no source file outgrows one sitting. Import cycles
// are Biome's (`npm run lint`, noImportCycles with type-only imports counted).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const MAX_LINES = 300;

interface Import {
  from: string;
  to: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const files = sourceFiles(SRC);

/** Every relative import and re-export of the tree, resolved to a file. */
const imports: Import[] = files.flatMap((file) => {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s*'(\.[^']+)'|^\s*import\s*'(\.[^']+)'/gm)].map(
    (m) => m[1] ?? m[2]!,
  );
  return specifiers.map((specifier) => ({ from: file, to: resolve(dirname(file), specifier) }));
});

const rel = (path: string) => relative(SRC, path);
const area = (path: string) => rel(path).split('/')[0]!;

describe('the layout of src/', () => {
  it(`finds the tree: ${files.length} files, ${imports.length} relative imports`, () => {
    expect(files.length).toBeGreaterThan(50);
    for (const { from, to } of imports) expect(existsSync(to), `${rel(from)} imports ${rel(to)}, which does not exist`).toBe(true);
  });

  it('jobs/ and mail/ never import each other', () => {
    const crossing = imports.filter(({ from, to }) => [area(from), area(to)].sort().join() === 'jobs,mail');
    expect(crossing.map(({ from, to }) => `${rel(from)} → ${rel(to)}`)).toEqual([]);
  });

  it('platform/ imports nothing outside platform/', () => {
    const outside = imports.filter(({ from, to }) => area(from) === 'platform' && area(to) !== 'platform');
    expect(outside.map(({ from, to }) => `${rel(from)} → ${rel(to)}`)).toEqual([]);
  });

  it("a folder is entered through its index.ts: a file imports its own folder's or an ancestor's modules, or another folder's index.ts", () => {
    const past = imports.filter(({ from, to }) => {
      const target = dirname(to);
      const importer = dirname(from);
      const ancestorOrSame = importer === target || importer.startsWith(`${target}/`);
      // A folder without an index.ts (src/, src/platform/) is a set of single-file modules, each its own face.
      return !ancestorOrSame && basename(to) !== 'index.ts' && existsSync(join(target, 'index.ts'));
    });
    expect(past.map(({ from, to }) => `${rel(from)} → ${rel(to)}`)).toEqual([]);
  });

  it(`no file is over ${MAX_LINES} lines`, () => {
    const long = files
      .map((file) => ({ file: rel(file), lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});
