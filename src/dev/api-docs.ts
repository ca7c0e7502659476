// `npm run docs:api`: writes docs/api/{jobs,mail}-openapi.json and {jobs,mail}-reference.md from the APIs'
// current route schemas (api-docs/). No database or running server is needed.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { API_DOCS_DIR, apiDocsFiles } from './api-docs/index.ts';

await mkdir(API_DOCS_DIR, { recursive: true });
for (const [name, content] of await apiDocsFiles()) {
  await writeFile(join(API_DOCS_DIR, name), content);
  process.stdout.write(`docs/api/${name}\n`);
}
