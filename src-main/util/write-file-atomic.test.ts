import { readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempFolder } from '../../test-support/temp-folder';
import { writeFileAtomic } from './write-file-atomic';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()?.();
});
const tempDir = () => tempFolder('steward-atomic-', cleanups);

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
