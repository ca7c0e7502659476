// `npm run docs:api`: writes docs/api/{jobs,mail}-openapi.json and {jobs,mail}-reference.md from the APIs'
// current route schemas (api-docs/), and the client's types made from the mail document (src/client/mail-api.ts).
// No database or running server is needed.
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { API_DOCS_DIR, apiDocsFiles, CLIENT_TYPES_FILE, clientTypes, openApiDocuments } from './api-docs/index.ts';

await mkdir(API_DOCS_DIR, { recursive: true });
for (const [name, content] of await apiDocsFiles()) {
  await writeFile(join(API_DOCS_DIR, name), content);
  process.stdout.write(`docs/api/${name}\n`);
}

await writeFile(CLIENT_TYPES_FILE, await clientTypes((await openApiDocuments()).mail));
process.stdout.write(`${relative(join(API_DOCS_DIR, '../..'), CLIENT_TYPES_FILE)}\n`);
