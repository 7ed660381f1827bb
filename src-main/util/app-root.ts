import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/**
 * The folder holding Steward's package.json. Found by walking up from this module, because the
 * module may run from source (src-main/…), from the bundle (out/main/ or a chunk below it) or from
 * a packaged app; a fixed relative path breaks in one of them.
 */
export function appRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown }).name === 'steward') return (cached = dir);
      } catch {
        // not ours; keep walking
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the Steward installation folder (package.json named "steward")');
    dir = parent;
  }
}
