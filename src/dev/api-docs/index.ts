// The generated part of docs/api/: each API's OpenAPI document as JSON and as a Markdown reference.
// `npm run docs:api` writes these files; test/dev/api-docs.test.ts fails when the committed ones differ.
import { fileURLToPath } from 'node:url';
import { openApiDocuments } from './documents.ts';
import { renderReference } from './markdown.ts';

// src/dev/api-docs/ and dist/dev/api-docs/ both sit three folders below the repository's root.
export const API_DOCS_DIR = fileURLToPath(new URL('../../../docs/api/', import.meta.url));

/** File name (in docs/api/) → content. */
export async function apiDocsFiles(): Promise<Map<string, string>> {
  const documents = await openApiDocuments();
  const files = new Map<string, string>();
  for (const [name, doc] of Object.entries(documents)) {
    const json = `${name}-openapi.json`;
    files.set(json, `${JSON.stringify(doc, null, 2)}\n`);
    files.set(`${name}-reference.md`, renderReference(doc, json));
  }
  return files;
}

export { CLIENT_TYPES_FILE, clientTypes } from './client-types.ts';
export { openApiDocuments };
