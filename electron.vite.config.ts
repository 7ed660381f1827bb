import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

const alias = { '@shared': resolve(__dirname, 'src-shared') };
const pkg = JSON.parse(readFileSync(resolve(__dirname, 'package.json'), 'utf8')) as { version: string };

/**
 * One build for every shell: the main bundle carries the Electron entry, the browser-run server and
 * the CLI (all plain Node apart from the Electron entry), the preload is CommonJS because sandboxed
 * preloads cannot be ES modules, and the renderer is the same React app for both transports.
 */
export default defineConfig({
  main: {
    resolve: { alias },
    define: {
      __STEWARD_VERSION__: JSON.stringify(pkg.version),
      // Fixed at build time: only `electron-vite dev` may load the renderer from ELECTRON_RENDERER_URL.
      __STEWARD_DEV__: JSON.stringify(process.env.NODE_ENV_ELECTRON_VITE === 'development'),
    },
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src-main/shells/electron/main.ts'),
          server: resolve(__dirname, 'src-main/shells/browser/server-main.ts'),
          cli: resolve(__dirname, 'src-main/shells/cli/cli-main.ts'),
        },
      },
    },
  },
  preload: {
    resolve: { alias },
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve(__dirname, 'src-main/shells/electron/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src-renderer'),
    base: './',
    resolve: { alias },
    plugins: [react()],
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      minify: true,
      rollupOptions: {
        input: resolve(__dirname, 'src-renderer/index.html'),
        // Libraries in chunks of their own, so no chunk passes the 500 kB warning (and they stay cached across app releases).
        output: {
          codeSplitting: {
            groups: [
              { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ },
              { name: 'xyflow', test: /node_modules[\\/](@xyflow|d3-[a-z]+|classcat|zustand)[\\/]/ },
              { name: 'zod', test: /node_modules[\\/]zod[\\/]/ },
              { name: 'data', test: /node_modules[\\/](dexie|dexie-react-hooks|xstate|@xstate|@tanstack)[\\/]/ },
              { name: 'vendor', test: /node_modules[\\/]/ },
              // The contracts and policies the host also runs: the app's own code stays under the limit too.
              { name: 'shared', test: /[\\/]src-shared[\\/]/ },
              // The screens a person opens to set things up (the editor, settings, registry, learning): the run views stay in the first chunk.
              { name: 'setup-screens', test: /[\\/]src-renderer[\\/]screens[\\/](editor|settings|registry|learning|costs)[\\/]/ },
            ],
          },
        },
      },
    },
  },
});
