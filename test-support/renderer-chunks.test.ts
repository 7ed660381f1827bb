import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ensureBuilt } from './ensure-built';

const RENDERER = fileURLToPath(new URL('../out/renderer', import.meta.url));
/** Vite's chunk-size warning limit (build.chunkSizeWarningLimit, in kB). */
const WARNING_KB = 500;

/** The script files the built page loads: its entry and every chunk it preloads. */
function pageScripts(): string[] {
  const html = readFileSync(join(RENDERER, 'index.html'), 'utf8');
  return [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.js)"/g)].map((m) => m[1] ?? '');
}

describe('the renderer bundle', () => {
  it('is split so that no chunk the page loads reaches the 500 kB warning of the build (issue 10)', () => {
    ensureBuilt();
    const scripts = pageScripts();
    expect(scripts.length).toBeGreaterThan(1);
    for (const script of scripts) expect(statSync(join(RENDERER, script)).size / 1000, script).toBeLessThan(WARNING_KB);
  });
});
