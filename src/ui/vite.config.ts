import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { compression } from 'vite-plugin-compression2';

const root = fileURLToPath(new URL('.', import.meta.url));
/**
 * react-router's package exports send every bundler to its development build (dev-only warnings and
 * checks); `vite build` takes the production build beside it. Both entries react-router-dom re-exports
 * (react-router and react-router/dom) must come from the same build.
 */
const routerDist = fileURLToPath(new URL('../../node_modules/react-router/dist/production/', import.meta.url));
const productionRouter = [
  { find: /^react-router$/, replacement: `${routerDist}index.mjs` },
  { find: /^react-router\/dom$/, replacement: `${routerDist}dom-export.mjs` },
];
const backend = process.env.VITE_BACKEND ?? 'http://localhost:3000';

/**
 * The React UI. Root is src/ui; the build lands in dist/ui, which the Nest process serves for every
 * non-API GET path. `npm run dev:ui` proxies /api and /socket.io to the Nest process on :3000.
 * Relative imports carry `.js` suffixes (as on the server); Vite resolves them to the .ts/.tsx source.
 *
 * Every JS, CSS, HTML, SVG and JSON file of the build also gets a brotli (.br, quality 11) and a gzip (.gz,
 * level 9) copy beside it (a copy no smaller than its file is not written); the server answers the copy
 * the browser accepts (src/core/http/ui-static.ts). Source maps stay uncompressed (only developer tools
 * fetch them).
 */
/**
 * The files the entry loads statically (index.html preloads them): every lazy page is imported after they
 * ran, so listing them again in each page's preload list (`__vite__mapDeps` in the route table, part of
 * every first load) is bytes for nothing. Filled in generateBundle, before Vite's import analysis (a post
 * plugin) asks resolveDependencies below.
 */
const entryFiles = new Set<string>();
const entryGraph: Plugin = {
  name: 'entry-graph',
  generateBundle(_opts, bundle) {
    entryFiles.clear();
    const add = (file: string) => {
      const c = bundle[file];
      if (entryFiles.has(file) || !c || c.type !== 'chunk') return;
      entryFiles.add(file);
      c.imports.forEach(add);
    };
    for (const c of Object.values(bundle)) if (c.type === 'chunk' && c.isEntry) add(c.fileName);
  },
};

export default defineConfig(({ command }) => ({
  root,
  base: '/',
  resolve: { alias: command === 'build' ? productionRouter : [] },
  plugins: [react(), entryGraph, compression({ algorithms: ['brotliCompress', 'gzip'], include: /\.(js|mjs|css|html|svg|json)$/ })],
  build: {
    outDir: '../../dist/ui',
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 1200,
    modulePreload: { resolveDependencies: (_file, deps, { hostType }) => (hostType === 'js' ? deps.filter((d) => !entryFiles.has(d)) : deps) },
  },
  server: {
    port: 5173,
    proxy: {
      '/api': { target: backend, changeOrigin: true },
      '/socket.io': { target: backend, ws: true, changeOrigin: true },
    },
  },
}));
