import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Tests of the shipped bundle need `out/`; `npm test` builds first, a lone vitest run may not have. */
export function ensureBuilt(): void {
  if (existsSync(`${ROOT}/out/main/cli.js`) && existsSync(`${ROOT}/out/main/server.js`) && existsSync(`${ROOT}/out/renderer/index.html`)) return;
  execFileSync(`${ROOT}/node_modules/.bin/electron-vite`, ['build'], { cwd: ROOT, stdio: 'ignore' });
}
