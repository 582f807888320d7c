import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The web app is built once (`npm run build -w packages/web`, run by `npm install` and `npm start`
 * when missing) into `dist/`, which `ninepoint serve` serves. `vite dev` proxies the API to a
 * server on port 3000.
 */
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false },
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});
