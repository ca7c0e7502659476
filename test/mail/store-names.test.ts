// Every statement of the mail store is prepared under one scheme, `mail.<aggregate>.<function>` with
// `.<variant>` when a function runs several texts, so a name seen in PostgreSQL's logs or pg_prepared_statements
// leads to the function that runs it.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const STORE = fileURLToPath(new URL('../../src/mail/store/', import.meta.url));
const files = readdirSync(STORE).filter((f) => f.endsWith('.ts') && f !== 'index.ts');

describe('mail store statement names', () => {
  it.each(files)('%s names every statement after its aggregate and function', (file) => {
    const aggregate = file.replace(/(-insert|-wait)?\.ts$/, '');
    const text = readFileSync(`${STORE}${file}`, 'utf8');
    const problems: string[] = [];
    for (const chunk of text.split(/\n(?:export )?async function /).slice(1)) {
      const fn = /^\w+/.exec(chunk)![0];
      const names = [...chunk.matchAll(/\bname: ['`]([^'`]+)['`]/g)].map((m) => m[1]!);
      const queries = chunk.match(/\bdb\.query\b/g)?.length ?? 0;
      if (names.length !== queries) problems.push(`${fn}: ${queries} statements, ${names.length} names`);
      const scheme = new RegExp(`^mail\\.${aggregate}\\.${fn}(\\.[a-z0-9]+|\\.\\$\\{[^}]+\\})?$`);
      for (const name of names) if (!scheme.test(name)) problems.push(`${fn}: ${name}`);
    }
    expect(problems).toEqual([]);
  });
});
