// docs/api/ cannot drift from the code: the committed OpenAPI documents and Markdown references are exactly
// what `npm run docs:api` makes now, those documents are the ones the APIs serve over a real database, each
// reference shows every operation with every status it answers, and the hand-written README lists every error
// code of the closed list with its status.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_DOCS_DIR, apiDocsFiles, CLIENT_TYPES_FILE, clientTypes, openApiDocuments } from '../../src/dev/api-docs/index.ts';
import { renderReference, type OpenApiDocument } from '../../src/dev/api-docs/markdown.ts';
import { PROBLEM_CODES } from '../../src/platform/http/index.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { startJobsApi, type JobsApi } from '../helpers/jobs.ts';
import { startMail, type Mail } from '../helpers/mail.ts';

let generated: Map<string, string>;
let documents: Awaited<ReturnType<typeof openApiDocuments>>;

beforeAll(async () => {
  generated = await apiDocsFiles();
  documents = await openApiDocuments();
});

describe('docs/api/', () => {
  it('holds exactly what the generator makes from the current code', async () => {
    expect([...generated.keys()].sort()).toEqual(['jobs-openapi.json', 'jobs-reference.md', 'mail-openapi.json', 'mail-reference.md']);
    for (const [name, content] of generated) {
      const committed = await readFile(join(API_DOCS_DIR, name), 'utf8').catch(() => '(missing)');
      expect(committed, `docs/api/${name} is not what the code documents now: run \`npm run docs:api\``).toBe(content);
    }
  });

  it("src/client/mail-api.ts holds the types openapi-typescript makes of the mail document (the client's types)", async () => {
    const committed = await readFile(CLIENT_TYPES_FILE, 'utf8').catch(() => '(missing)');
    expect(committed, 'src/client/mail-api.ts is not what the mail document says now: run `npm run docs:api`').toBe(
      await clientTypes(documents.mail),
    );
    const changed = structuredClone(documents.mail);
    changed.components!.schemas!.Inbox!.properties!.address = { type: 'integer' };
    expect(await clientTypes(changed)).not.toBe(committed);
  });

  it('lists every operation in the reference, with each status it answers', () => {
    for (const [name, doc] of Object.entries(documents)) {
      const reference = generated.get(`${name}-reference.md`)!;
      for (const [path, operations] of Object.entries(doc.paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          const heading = `### ${method.toUpperCase()} ${path}\n`;
          expect(reference, `${name}: ${heading}`).toContain(heading);
          const section = reference.slice(reference.indexOf(heading)).split('\n### ')[0]!;
          for (const status of Object.keys(operation.responses)) {
            expect(section, `${heading} ${status}`).toMatch(new RegExp(`^\\| ${status} \\|`, 'm'));
          }
        }
      }
    }
  });

  it('README.md lists every problem code with its status, and links every generated file', async () => {
    const readme = await readFile(join(API_DOCS_DIR, 'README.md'), 'utf8');
    const listed = Object.fromEntries([...readme.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])]));
    expect(listed).toEqual(Object.fromEntries(Object.entries(PROBLEM_CODES).map(([code, { status }]) => [code, status])));
    for (const name of generated.keys()) expect(readme).toContain(`(${name})`);
  });

  it('shows a schema change in the reference (the comparison above can fail)', () => {
    const doc = structuredClone(documents.jobs);
    doc.paths['/v1/jobs']!.post!.summary = 'a summary the code does not have';
    expect(renderReference(doc, 'jobs-openapi.json')).not.toBe(generated.get('jobs-reference.md'));
    expect(renderReference(doc, 'jobs-openapi.json')).toContain('a summary the code does not have');
  });
});

describe('the generator builds the documents the running APIs serve', () => {
  let db: TestDatabase;
  let jobs: JobsApi;
  let mail: Mail;
  beforeAll(async () => {
    db = await createTestDatabase();
    jobs = await startJobsApi(db);
    mail = await startMail(db);
  });
  afterAll(async () => {
    await jobs?.close();
    await mail?.close();
    await db?.pool.end();
  });

  it.each(['jobs', 'mail'] as const)('%s', async (name) => {
    const url = name === 'jobs' ? jobs.url : mail.url;
    const served = (await (await fetch(`${url}/openapi.json`)).json()) as OpenApiDocument;
    expect(served).toEqual(documents[name]);
  });
});
