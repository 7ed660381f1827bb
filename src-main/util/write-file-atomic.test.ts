import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from './write-file-atomic';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'steward-atomic-'));
  dirs.push(dir);
  return dir;
};

describe('a file written whole or not at all', () => {
  it('written in pieces, it holds them all, and nothing is left beside it', () => {
    const dir = tempDir();
    const file = join(dir, 'out.txt');
    expect(writeFileAtomic(file, (write) => (['a', 'b', 'c'].forEach(write), 3))).toBe(3);
    expect(readFileSync(file, 'utf8')).toBe('abc');
    expect(readdirSync(dir)).toEqual(['out.txt']);
  });

  it('a fill that throws leaves the old file as it was and no temporary sibling', () => {
    const dir = tempDir();
    const file = join(dir, 'out.txt');
    writeFileSync(file, 'old');
    expect(() =>
      writeFileAtomic(file, (write) => {
        write('half');
        throw new Error('the source broke');
      }),
    ).toThrow('the source broke');
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(readdirSync(dir)).toEqual(['out.txt']);
  });

  it('a link at the name is replaced, never written through', () => {
    const dir = tempDir();
    const target = join(dir, 'elsewhere.txt');
    writeFileSync(target, 'keep');
    const file = join(dir, 'out.txt');
    symlinkSync(target, file);
    writeFileAtomic(file, (write) => write('new'));
    expect(readFileSync(target, 'utf8')).toBe('keep');
    expect(readFileSync(file, 'utf8')).toBe('new');
  });
});
