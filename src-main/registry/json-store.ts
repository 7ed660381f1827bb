import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import type { z } from 'zod';
import { parseJsonText } from '@shared/util/json-syntax';
import { formatFileIssues } from '../spec/load-spec';

/** A host-held registry file that is unreadable or damaged: nothing that depends on it proceeds. */
export class RegistryFileError extends Error {
  override readonly name = 'RegistryFileError';
}

/**
 * Reads one registry file, validated; `fallback` when it does not exist yet. A damaged file is an
 * error (fail closed: a lost override must not silently become the less protected default), and
 * the message says where, never what the file holds.
 */
export function readJsonFile<S extends z.ZodType>(path: string, schema: S, fallback: z.infer<S>): z.infer<S> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
    throw new RegistryFileError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new RegistryFileError(`${path} is damaged (not valid JSON at ${parsed.message}); fix or remove it`);
  const checked = schema.safeParse(parsed.value);
  if (!checked.success) throw new RegistryFileError(`${path} is damaged (${formatFileIssues(checked.error)}); fix or remove it`);
  return checked.data;
}

/** Writes a whole file atomically: a temporary file next to it, flushed, then renamed over it. */
export function writeJsonAtomic(path: string, value: unknown): void {
  const tmp = `${path}.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(value, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
