// `npm test`: build, then every suite (vitest: unit + integration; Playwright: e2e in headless
// Chromium). Both suites run even if the first fails; the exit code says whether all passed.
import { spawnSync } from 'node:child_process';

const bin = (name) => new URL(`../node_modules/.bin/${name}${process.platform === 'win32' ? '.cmd' : ''}`, import.meta.url).pathname;
const run = (label, cmd, args) => {
  process.stdout.write(`\n— ${label}\n`);
  return spawnSync(cmd, args, { stdio: 'inherit', shell: process.platform === 'win32' }).status === 0;
};

if (!run('build', bin('electron-vite'), ['build'])) process.exit(1);
const unit = run('vitest', bin('vitest'), ['run']);
const e2e = run('playwright', bin('playwright'), ['test']);
process.exit(unit && e2e ? 0 : 1);
