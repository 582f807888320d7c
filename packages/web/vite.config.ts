import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The web app is built once (`npm run build -w packages/web`, run by `npm install` and `npm start`
 * when missing) into `dist/`, which `ninepoint serve` serves. `vite dev` proxies the API to a
 * server on port 3000.
 */
export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // Only the Studio's lazy chunks are this large (CodeMirror with the checker, and Mermaid's
    // layouts, fetched when a diagram needs them); the app shell is budgeted in docs/benchmarks.md.
    chunkSizeWarningLimit: 1600,
  },
  // The API, and the field checks the server generates from the spec (`/app/validators.js`).
  server: { proxy: { '/api': 'http://127.0.0.1:3000', '/app': 'http://127.0.0.1:3000' } },
});
