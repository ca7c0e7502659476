// The rules of the house, checked on every run: the services never import each other, the platform knows no
// service, a folder is entered through its index.ts, and no source file outgrows one sitting. Import cycles
// are Biome's (`npm run lint`, noImportCycles with type-only imports counted).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const MAX_LINES = 300;
/** Files a generator writes (`npm run docs:api`): their length is the API's, not anyone's sitting. */
const GENERATED = new Set(['client/mail-api.ts']);

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

/** Every module specifier of a file: static imports and re-exports, side-effect imports, import() and require(). */
function specifiersOf(text: string): string[] {
  const found = text.matchAll(
    /^\s*(?:import|export)\b[^'"]*?from\s*'([^']+)'|^\s*import\s*'([^']+)'|\b(?:import|require)\s*\(\s*['"`]([^'"`]+)/gm,
  );
  return [...found].map((m) => m[1] ?? m[2] ?? m[3]!);
}

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

  it('client/ (`domainkit/client`) imports only its own files: no package, no node: module, no server code', () => {
    const outside = files
      .filter((file) => area(file) === 'client')
      .flatMap((file) => specifiersOf(readFileSync(file, 'utf8')).map((specifier) => ({ file, specifier })))
      .filter(({ file, specifier }) => !specifier.startsWith('.') || area(resolve(dirname(file), specifier)) !== 'client');
    expect(outside.map(({ file, specifier }) => `${rel(file)} → ${specifier}`)).toEqual([]);
  });

  it('mcp/ reaches the mail API only through client/, and only the CLI imports it', () => {
    const wrong = imports.filter(({ from, to }) =>
      area(from) === 'mcp' ? !['mcp', 'client'].includes(area(to)) : area(to) === 'mcp' && rel(from) !== 'cli.ts',
    );
    expect(wrong.map(({ from, to }) => `${rel(from)} → ${rel(to)}`)).toEqual([]);
  });

  it(`no file is over ${MAX_LINES} lines`, () => {
    const long = files
      .map((file) => ({ file: rel(file), lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
      .filter(({ file, lines }) => lines > MAX_LINES && !GENERATED.has(file));
    expect(long).toEqual([]);
  });
});
