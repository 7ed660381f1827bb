#!/usr/bin/env node
// The `steward` command: runs the CLI from the built bundle (`npm run build`, done by `npm ci`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../out/main/cli.js', import.meta.url));
if (!existsSync(cli)) {
  process.stderr.write('steward: not built yet. Run `npm run build` in the Steward folder first.\n');
  process.exit(2);
}
await import(cli);
