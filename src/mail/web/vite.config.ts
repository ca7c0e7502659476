// The web inbox's build: client/ → dist/web/ at the repository root, where assets.ts looks.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const client = fileURLToPath(new URL('./client/', import.meta.url));

export default defineConfig({
  root: client,
  base: '/',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../../../dist/web/', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // No inline polyfill script: the page's CSP allows only our own files, and every target browser has
    // modulepreload.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
