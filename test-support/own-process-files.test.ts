import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHANGES_THE_PROCESS, OWN_PROCESS_FILES } from './own-process-files';

/**
 * Most test files share their worker's process (vitest.config.ts): one that changes the process (its
 * environment, a global, a prototype) or mocks a module would change the files after it, in an
 * order that differs from run to run. Such a file runs in a process of its own; this finds them.
 */
const ROOT = resolve(__dirname, '..');

function testFiles(dir: string, into: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) testFiles(path, into);
    else if (/\.test\.tsx?$/.test(name)) into.push(relative(ROOT, path));
  }
  return into;
}

describe('test files that change their process run in a process of their own', () => {
  const files = ['src-shared', 'src-main', 'src-renderer', 'test-support'].flatMap((layer) => testFiles(join(ROOT, layer)));

  it('every file that changes the process is listed in own-process-files.ts', () => {
    const changing = files.filter((file) => file !== 'test-support/own-process-files.test.ts' && CHANGES_THE_PROCESS.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(changing.length).toBeGreaterThan(0);
    expect(changing.filter((file) => !OWN_PROCESS_FILES.includes(file))).toEqual([]);
  });

  it('every listed file exists (a renamed file would otherwise share a process again)', () => {
    expect(OWN_PROCESS_FILES.filter((file) => !files.includes(file))).toEqual([]);
  });

  it('the pattern catches what it is meant to catch', () => {
    for (const line of ['process.env.DBUS_SESSION_BUS_ADDRESS = "x";', "process.env['HOME'] = dir;", 'delete process.env.FOO;', "vi.mock('./x');", 'vi.spyOn(console, "log");', 'vi.useFakeTimers();', 'globalThis.fetch = fake;', 'Client.prototype.callTool = timed;']) {
      expect(CHANGES_THE_PROCESS.test(line), line).toBe(true);
    }
    for (const line of ['if (process.env.CI === "1") {}', 'const home = process.env.HOME;', 'expect(a).toBe(b);']) expect(CHANGES_THE_PROCESS.test(line), line).toBe(false);
  });
});
