import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The console is served by the API server from web/dist (src/web/web.routes.ts); nothing loads from a CDN.
// React's JSX is compiled by Vite's own transformer (automatic runtime, from web/tsconfig.json).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
    sourcemap: false,
    rolldownOptions: {
      // Mantine marks its modules "use client" for React Server Components; a browser bundle has no use for it.
      onwarn(warning, warn) {
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
  server: {
    proxy: {
      '/graphql': { target: 'http://127.0.0.1:4000', ws: true },
      '/api': 'http://127.0.0.1:4000',
    },
  },
});
