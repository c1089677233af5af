import { defineConfig } from 'vite';

// Served by the API server at /console (src/http/console.ts), so every asset URL starts there.
// JSX is compiled by Vite's own transformer for Preact's automatic runtime.
export default defineConfig({
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, assetsInlineLimit: 0 },
});
