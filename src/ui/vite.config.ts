import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
const backend = process.env.VITE_BACKEND ?? 'http://localhost:3000';

/**
 * The React UI. Root is src/ui; the build lands in dist/ui, which the Nest process serves for every
 * non-API GET path. `npm run dev:ui` proxies /api and /socket.io to the Nest process on :3000.
 * Relative imports carry `.js` suffixes (as on the server); Vite resolves them to the .ts/.tsx source.
 */
export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: '../../dist/ui',
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 1200,
  },
  server: {
    port: 5173,
    proxy: {
      '/api': { target: backend, changeOrigin: true },
      '/socket.io': { target: backend, ws: true, changeOrigin: true },
    },
  },
});
